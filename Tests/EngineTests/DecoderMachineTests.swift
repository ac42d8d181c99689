import AudioCore
@testable import Engine
import FermataCore
import Testing

/// The decoder's state machine with no thread, device or file: commands and step results in, the environment's
/// recorded actions out (`ScriptedDecoderEnvironment`). The captured-PCM suites (GaplessTests, LoopTests,
/// CountInTests, ...) prove the same behaviours end to end; these pin each decision.
@Suite struct DecoderMachineTests {
    typealias Action = ScriptedDecoderEnvironment.Action
    static let cd = AudioFormat(sampleRate: 44_100, channels: 2, encoding: .s16)
    static let hiRes = AudioFormat(sampleRate: 96_000, channels: 2, encoding: .s32, validBits: 24)
    static let a = PlayableItem(entryID: 1, path: "a.flac")
    static let b = PlayableItem(entryID: 2, path: "b.flac")
    static let c = PlayableItem(entryID: 3, path: "c.flac")

    static func machine(_ policy: FormatPolicy = .fixed(nil), fadeMilliseconds: Int = 5) -> DecoderMachine {
        DecoderMachine(formatPolicy: policy, loopCrossfadeMilliseconds: fadeMilliseconds,
                       crossfadeCapacity: 192_000 * fadeMilliseconds / 1000 + 1)
    }

    static func environment(_ tracks: [PlayableItem: ScriptedDecoderEnvironment.Track]) -> ScriptedDecoderEnvironment {
        let env = ScriptedDecoderEnvironment()
        for (item, track) in tracks { env.tracks[item.path] = track }
        return env
    }

    /// Steps until `done` holds on the machine (at most `limit` steps).
    static func step(_ machine: inout DecoderMachine, _ env: ScriptedDecoderEnvironment, limit: Int = 1000,
                     until done: (DecoderMachine) -> Bool) {
        for _ in 0..<limit where !done(machine) { machine.step(env) }
    }

    static func decoded(_ actions: some Sequence<Action>) -> Int {
        actions.reduce(0) { sum, action in if case let .decoded(n) = action { sum + n } else { sum } }
    }

    static func position(_ machine: DecoderMachine) -> Int64? {
        if case let .decoding(cursor, _) = machine.phase { cursor.position } else { nil }
    }

    @Test func startOpensTheDeviceAtTheTracksFormatAndMarksTheStart() {
        var machine = Self.machine()
        let env = Self.environment([Self.a: .init(format: Self.cd, frames: 10_000)])
        machine.handle(.start(Self.a, frame: 0, generation: 1, countIn: nil), env)
        #expect(env.actions == [
            .overlay(false), .open(1, at: 0), .flush(.drop, open: Self.cd), .resetConverter,
            .configure(source: Self.cd, device: Self.cd), .mark(.trackStart, 1, frame: 0, holds: false),
            .event(.decodingStarted(1)), .resume,
        ])
        #expect(machine.phase == .decoding(.init(item: Self.a, format: Self.cd, position: 0), next: .unknown))
        #expect(machine.device == Self.cd && machine.startGeneration == 1)
    }

    @Test func gaplessHandOverOpensTheNextTrackWithNoFlush() {
        var machine = Self.machine()
        let env = Self.environment([Self.a: .init(format: Self.cd, frames: 10_000),
                                    Self.b: .init(format: Self.cd, frames: 6_000)])
        machine.handle(.start(Self.a, frame: 0, generation: 1, countIn: nil), env)
        machine.handle(.setUpcoming(after: 1, Self.b), env)
        env.clear()
        Self.step(&machine, env) { Self.position($0) == 0 && env.actions.contains(.event(.decodingStarted(2))) }
        #expect(Self.decoded(env.actions) == 10_000, "all of A, chunk-limited only")
        #expect(!env.actions.contains { if case .flush = $0 { true } else { false } }, "no flush: \(env.actions)")
        let handOver = Array(env.actions.drop { $0 != .closeDecoder })
        #expect(handOver == [
            .closeDecoder, .open(2, at: nil), .configure(source: Self.cd, device: Self.cd),
            .mark(.trackStart, 2, frame: 0, holds: false), .event(.decodingStarted(2)),
        ], "A's last chunk, then B's start mark in the next byte")

        // B is last: its end is the stream's end.
        machine.handle(.setUpcoming(after: 2, nil), env)
        env.clear()
        Self.step(&machine, env) { $0.phase == .idle }
        #expect(Self.decoded(env.actions) == 6_000)
        #expect(env.actions.suffix(3) == [.closeDecoder, .drainConverter, .mark(.end, nil, frame: 0, holds: false)])
    }

    @Test func aFormatChangeReopensTheDeviceWhenFollowingAndConvertsWhenFixed() {
        for policy in [FormatPolicy.follow(settleMilliseconds: 0), .fixed(nil)] {
            var machine = Self.machine(policy)
            let env = Self.environment([Self.a: .init(format: Self.cd, frames: 5_000),
                                        Self.b: .init(format: Self.hiRes, frames: 5_000)])
            machine.handle(.start(Self.a, frame: 0, generation: 1, countIn: nil), env)
            machine.handle(.setUpcoming(after: 1, Self.b), env)
            env.clear()
            Self.step(&machine, env) { _ in env.actions.contains(.event(.decodingStarted(2))) }
            if case .follow = policy {
                #expect(env.actions.contains(.flush(.reopen, open: Self.hiRes)))
                #expect(env.actions.contains(.configure(source: Self.hiRes, device: Self.hiRes)))
                #expect(machine.device == Self.hiRes)
            } else {
                #expect(!env.actions.contains { if case .flush = $0 { true } else { false } })
                #expect(env.actions.contains(.configure(source: Self.hiRes, device: Self.cd)), "converted to the open device")
            }
        }
    }

    @Test func loopPassesAreExactlyBMinusAAndStopAfterTheRepeatCount() {
        var machine = Self.machine()
        let env = Self.environment([Self.a: .init(format: Self.cd, frames: 100_000)])
        machine.handle(.start(Self.a, frame: 0, generation: 1, countIn: nil), env)
        machine.handle(.setLoop(entry: 1, LoopRegion(start: 10_000, end: 30_000, repeatCount: 2)), env)
        env.clear()
        Self.step(&machine, env) { $0.phase == .awaitingSuccessor(after: 1) }
        let fade = Self.cd.frames(forMilliseconds: 5)
        let seams = env.actions.indices.filter { if case .seam = env.actions[$0] { true } else { false } }
        #expect(seams.count == 2, "two passes back to A, then on: \(seams)")
        #expect(Self.decoded(env.actions[..<seams[0]]) == 30_000, "the lead-in ends exactly at B")
        for seam in seams {
            #expect(Array(env.actions[seam...].prefix(3)) == [
                .seam(from: 10_000, fade: fade), .mark(.seam, 1, frame: 10_000, holds: false), .crossfade(fade),
            ])
        }
        // Each pass: the crossfade, then A + fade up to B — exactly B − A frames.
        #expect(fade + Self.decoded(env.actions[seams[0]..<seams[1]]) == 20_000)
        #expect(Self.decoded(env.actions[seams[1]...]) == 100_000 - 10_000 - fade, "after the last pass, to the end")
    }

    /// A loop cleared while the listener is still before B, but the decoder (running ahead) has already written the
    /// seam back to A: what is heard must go straight on past B. The power-cut campaign heard the old jump (seed 4,
    /// cut 86: `loop_clear` answered 0.1 s before B, and the playback went back to A).
    @Test func clearingALoopWhoseSeamIsAlreadyDecodedGoesStraightOn() {
        var machine = Self.machine()
        let env = Self.environment([Self.a: .init(format: Self.cd, frames: 100_000)])
        machine.handle(.start(Self.a, frame: 0, generation: 1, countIn: nil), env)
        machine.handle(.setLoop(entry: 1, LoopRegion(start: 10_000, end: 30_000)), env)
        Self.step(&machine, env) { _ in env.actions.contains { if case .seam = $0 { true } else { false } } }
        env.listener = 20_000  // the listener is at frame 20,000 of A (the ring counts frames here)
        env.clear()
        machine.handle(.setLoop(entry: 1, nil), env)
        #expect(env.actions.first == .flush(.splice, open: nil), "the decoded seam is dropped: \(env.actions)")
        #expect(Self.position(machine) == 20_000, "decoding goes on from what is heard")
        env.clear()
        Self.step(&machine, env) { _ in env.actions.contains(.closeDecoder) }
        #expect(!env.actions.contains { if case .seam = $0 { true } else { false } }, "no jump back after the clear")
        #expect(Self.decoded(env.actions) == 80_000, "straight from 20,000 to the end")
    }

    /// B moved later while the old seam is already decoded (a nudge): the old jump is dropped and the next seam
    /// comes at the new B.
    @Test func movingBLaterAfterItsSeamWasDecodedJumpsAtTheNewB() {
        var machine = Self.machine()
        let env = Self.environment([Self.a: .init(format: Self.cd, frames: 100_000)])
        machine.handle(.start(Self.a, frame: 0, generation: 1, countIn: nil), env)
        machine.handle(.setLoop(entry: 1, LoopRegion(start: 10_000, end: 30_000)), env)
        Self.step(&machine, env) { _ in env.actions.contains { if case .seam = $0 { true } else { false } } }
        env.listener = 20_000
        env.clear()
        machine.handle(.setLoop(entry: 1, LoopRegion(start: 10_000, end: 35_000)), env)
        #expect(env.actions.first == .flush(.splice, open: nil), "\(env.actions)")
        env.clear()
        Self.step(&machine, env) { _ in env.actions.contains { if case .seam = $0 { true } else { false } } }
        #expect(Self.decoded(env.actions) == 15_000, "from the heard 20,000 to the new B")
        // The same region again changes nothing: no flush.
        env.clear()
        machine.handle(.setLoop(entry: 1, LoopRegion(start: 10_000, end: 35_000)), env)
        #expect(!env.actions.contains { if case .flush = $0 { true } else { false } })
    }

    @Test func aSeekDuringALoopKeepsTheLoopAndTheKnownSuccessor() {
        var machine = Self.machine()
        let env = Self.environment([Self.a: .init(format: Self.cd, frames: 100_000)])
        machine.handle(.start(Self.a, frame: 0, generation: 1, countIn: nil), env)
        machine.handle(.setLoop(entry: 1, LoopRegion(start: 10_000, end: 30_000)), env)
        machine.handle(.setUpcoming(after: 1, Self.b), env)
        Self.step(&machine, env) { _ in env.actions.contains { if case .seam = $0 { true } else { false } } }

        env.clear()
        machine.handle(.start(Self.a, frame: 25_000, generation: 2, countIn: nil), env)
        #expect(env.actions == [
            .overlay(false), .open(1, at: 25_000), .flush(.drop, open: Self.cd), .resetConverter,
            .configure(source: Self.cd, device: Self.cd), .mark(.trackStart, 1, frame: 25_000, holds: false),
            .event(.decodingStarted(1)), .resume,
        ])
        #expect(machine.phase == .decoding(.init(item: Self.a, format: Self.cd, position: 25_000), next: .known(Self.b)))
        env.clear()
        Self.step(&machine, env) { _ in env.actions.contains { if case .seam = $0 { true } else { false } } }
        #expect(Self.decoded(env.actions) == 5_000, "from the seek to B, then the seam")

        // A seek past B plays on: the loop is behind the cursor.
        machine.handle(.start(Self.a, frame: 50_000, generation: 3, countIn: nil), env)
        env.clear()
        Self.step(&machine, env) { _ in env.actions.contains(.closeDecoder) }
        #expect(!env.actions.contains { if case .seam = $0 { true } else { false } })
        #expect(Self.decoded(env.actions) == 50_000)
    }

    @Test func aCountInHoldsThePositionThenThePlayBegins() {
        var machine = Self.machine()
        let env = Self.environment([Self.a: .init(format: Self.cd, frames: 100_000)])
        machine.handle(.start(Self.a, frame: 1_000, generation: 1, countIn: CountInPlan(beats: 4, bpm: 120)), env)
        #expect(env.actions.suffix(4) == [
            .mark(.trackStart, 1, frame: 1_000, holds: false), .event(.decodingStarted(1)),
            .mark(.jump, 1, frame: 1_000, holds: true), .resume,
        ], "the start, then the position held at 1000 for the clicks")
        #expect(machine.inserts.count == 1 && machine.inserts[0].total == 4 * 22_050, "4 beats at 120 BPM")
        env.clear()
        machine.step(env)
        #expect(Array(env.actions.prefix(3)) == [
            .insert(frames: 4 * 22_050), .mark(.jump, 1, frame: 1_000, holds: false), .decoded(4096),
        ], "the clicks, then the music from the held position")
        #expect(machine.inserts.isEmpty && Self.position(machine) == Int64(1_000 + 4096))

        // With no BPM given, the file's tag (120 in the script) times the tempo.
        machine.handle(.setTempo(0.5), env)
        machine.handle(.start(Self.a, frame: 0, generation: 2, countIn: CountInPlan(beats: 2)), env)
        #expect(machine.inserts.map(\.total) == [2 * 44_100], "120 BPM at half speed: a beat a second")
    }

    @Test func aCountInBeforeEachPassEndsThePassExactlyAtB() throws {
        var machine = Self.machine()
        let env = Self.environment([Self.a: .init(format: Self.cd, frames: 100_000)])
        machine.handle(.start(Self.a, frame: 0, generation: 1, countIn: nil), env)
        machine.handle(.setLoop(entry: 1, LoopRegion(start: 10_000, end: 30_000, repeatCount: 1)), env)
        machine.handle(.setPassCountIn(CountInPlan(beats: 2, bpm: 60, beforeEachPass: true)), env)
        env.clear()
        Self.step(&machine, env) { _ in env.actions.contains { if case .insert = $0 { true } else { false } } }
        let seek = try #require(env.actions.firstIndex(of: .seek(10_000)))
        #expect(Self.decoded(env.actions[..<seek]) == 30_000, "no crossfade: the pass ends at B")
        #expect(Array(env.actions[seek...].prefix(7)) == [
            .seek(10_000), .drainConverter, .resetConverter, .mark(.seam, 1, frame: 10_000, holds: true),
            .insert(frames: 2 * 44_100), .mark(.jump, 1, frame: 10_000, holds: false), .decoded(4096),
        ], "the clicks at B, then A")
        #expect(Self.position(machine) == Int64(10_000 + 4096), "A from its first frame")
    }

    @Test func stopDuringACrossfadeClosesEverythingAndAStartBeginsClean() {
        var machine = Self.machine()
        let env = Self.environment([Self.a: .init(format: Self.cd, frames: 100_000)])
        machine.handle(.start(Self.a, frame: 0, generation: 1, countIn: nil), env)
        machine.handle(.setLoop(entry: 1, LoopRegion(start: 10_000, end: 30_000)), env)
        Self.step(&machine, env) { _ in env.actions.contains { if case .crossfade = $0 { true } else { false } } }
        machine.handle(.announce(Speech(samples: [0.5, 0.5], rate: 44_100), duck: true), env)
        #expect(env.actions.last(where: { if case .overlay = $0 { true } else { false } }) == .overlay(true),
                "words over the music, ducking it")

        env.clear()
        machine.handle(.stop, env)
        #expect(env.actions == [.overlay(false), .flush(.close, open: nil), .closeDecoder, .resetConverter, .resume])
        #expect(machine.phase == .idle && machine.device == nil && machine.inserts.isEmpty)
        env.clear()
        machine.step(env)
        #expect(env.actions.isEmpty, "stopped: a step does nothing")

        // The loop setting survives; the passes start again from the new start.
        machine.handle(.start(Self.a, frame: 0, generation: 2, countIn: nil), env)
        #expect(env.actions.contains(.flush(.drop, open: Self.cd)))
        env.clear()
        Self.step(&machine, env) { _ in env.actions.contains { if case .seam = $0 { true } else { false } } }
        #expect(Self.decoded(env.actions) == 30_000)
    }

    @Test func anUnreadableFirstTrackWaitsForTheNextAndThatOneOpensTheDevice() {
        var machine = Self.machine()
        let env = Self.environment([Self.b: .init(format: Self.cd, frames: 1_000)])
        env.unreadable = ["a.flac"]
        machine.handle(.start(Self.a, frame: 0, generation: 1, countIn: nil), env)
        #expect(machine.phase == .awaitingSuccessor(after: 1))
        #expect(env.actions.contains(.event(.trackFailed(1, "cannot read a.flac: scripted"))))
        env.clear()
        machine.handle(.setUpcoming(after: 1, Self.b), env)
        #expect(env.actions == [
            .open(2, at: nil), .flush(.drop, open: Self.cd), .configure(source: Self.cd, device: Self.cd),
            .mark(.trackStart, 2, frame: 0, holds: false), .event(.decodingStarted(2)), .resume,
        ])
    }

    @Test func aNewSuccessorAfterTheHandOverSplicesBackWhileTheListenerIsInTheTrack() {
        var machine = Self.machine()
        let env = Self.environment([Self.a: .init(format: Self.cd, frames: 10_000),
                                    Self.b: .init(format: Self.cd, frames: 50_000),
                                    Self.c: .init(format: Self.cd, frames: 50_000)])
        machine.handle(.start(Self.a, frame: 0, generation: 1, countIn: nil), env)
        machine.handle(.setUpcoming(after: 1, Self.b), env)
        Self.step(&machine, env, limit: 5) { _ in false }
        #expect(Self.position(machine) ?? 0 > 0 && env.actions.contains(.event(.decodingStarted(2))),
                "the decoder is into B")
        env.listener = 7_000
        env.clear()
        machine.handle(.setUpcoming(after: 1, Self.c), env)
        #expect(env.actions == [
            .flush(.splice, open: nil), .open(1, at: 7_000), .resetConverter,
            .configure(source: Self.cd, device: Self.cd), .mark(.jump, 1, frame: 7_000, holds: false), .resume,
        ], "A again from where the listener is")
        #expect(machine.phase == .decoding(.init(item: Self.a, format: Self.cd, position: 7_000), next: .known(Self.c)))
    }

    /// A queue entry that plays part of its file: B starts at its span's start, loops its passes (hard seams), ends at
    /// its end and hands over as a track's end does; its tempo of 80 % is set before its first mark (the stretcher's
    /// tail of A written first), and C after it returns to the listener's 100 %.
    @Test func aSpannedEntryStartsAtItsStartPlaysItsPassesEndsAtItsEndAtItsOwnTempo() {
        var machine = Self.machine(fadeMilliseconds: 0)
        var b = Self.b
        b.span = PlaySpan(startMilliseconds: 100, endMilliseconds: 200, passes: 3, tempoPercent: 80)
        let env = Self.environment([Self.a: .init(format: Self.cd, frames: 10_000), b: .init(format: Self.cd, frames: 50_000),
                                    Self.c: .init(format: Self.cd, frames: 2_000)])
        machine.handle(.start(Self.a, frame: 0, generation: 1, countIn: nil), env)
        machine.handle(.setUpcoming(after: 1, b), env)
        env.clear()
        Self.step(&machine, env) { _ in env.actions.contains(.event(.decodingStarted(2))) }
        #expect(Array(env.actions.drop { $0 != .closeDecoder }) == [
            .closeDecoder, .open(2, at: nil), .seek(4_410), .drainConverter, .resetConverter,
            .configure(source: Self.cd, device: Self.cd), .tempo(0.8, continuous: false),
            .mark(.trackStart, 2, frame: 4_410, holds: false), .event(.decodingStarted(2)),
        ])
        machine.handle(.setUpcoming(after: 2, Self.c), env)
        env.clear()
        Self.step(&machine, env) { _ in env.actions.contains(.event(.decodingStarted(3))) }
        #expect(Self.decoded(env.actions) == 3 * 4_410, "three passes of 100 ms: \(env.actions)")
        #expect(env.actions.filter { if case .seam = $0 { true } else { false } } == [.seam(from: 4_410, fade: 0),
                                                                                        .seam(from: 4_410, fade: 0)])
        #expect(env.actions.contains(.tempo(1, continuous: false)), "C plays at the listener's tempo")
        #expect(env.actions.contains(.mark(.trackStart, 3, frame: 0, holds: false)))
    }

    /// The listener's tempo set while an entry with its own plays wins for the rest of that entry, a seek in it
    /// included; an entry with a tempo of its own after it plays at its own again.
    @Test func theListenersTempoOnAnEntryWithItsOwnHoldsForThatEntry() {
        var machine = Self.machine()
        var a = Self.a, b = Self.b
        a.span = PlaySpan(startMilliseconds: 0, tempoPercent: 80)
        b.span = PlaySpan(startMilliseconds: 0, tempoPercent: 120)
        let env = Self.environment([a: .init(format: Self.cd, frames: 10_000), b: .init(format: Self.cd, frames: 10_000)])
        machine.handle(.start(a, frame: 0, generation: 1, countIn: nil), env)
        #expect(machine.tempo == 0.8)
        machine.handle(.setTempo(0.9), env)
        #expect(machine.tempo == 0.9 && machine.listenerTempo == 0.9)
        machine.handle(.start(a, frame: 5_000, generation: 2, countIn: nil), env)
        #expect(machine.tempo == 0.9, "a seek in the entry keeps the listener's tempo")
        machine.handle(.start(b, frame: 0, generation: 3, countIn: nil), env)
        #expect(machine.tempo == 1.2)
        machine.handle(.start(a, frame: 0, generation: 4, countIn: nil), env)
        #expect(machine.tempo == 0.8, "the listener's change was for that visit of the entry")
    }
}
