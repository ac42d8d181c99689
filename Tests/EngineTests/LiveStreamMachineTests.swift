import AudioCore
@testable import Engine
import FermataCore
import Testing

/// The decoder's state machine with a network stream: it waits for the stream to connect without holding the engine
/// (commands are still taken), begins it once audio is in, moves on when it fails, and plays it live (no tempo, no
/// loop, no position to go back to).
@Suite struct LiveStreamMachineTests {
    typealias Action = ScriptedDecoderEnvironment.Action
    static let cd = DecoderMachineTests.cd
    static let a = DecoderMachineTests.a
    static let radio = PlayableItem(entryID: 7, path: "http://radio.example/live")

    static func environment() -> ScriptedDecoderEnvironment {
        let env = DecoderMachineTests.environment([Self.a: .init(format: Self.cd, frames: 10_000)])
        env.tracks[Self.radio.path] = .init(format: Self.cd, frames: 100_000)
        return env
    }

    @Test func aStartWaitsWithTheDeviceClosedThenBeginsAtTheStreamsFormat() {
        var machine = DecoderMachineTests.machine()
        let env = Self.environment()
        env.live[Self.radio.path] = .pending
        machine.handle(.start(Self.radio, frame: 123_456, generation: 1, countIn: nil), env)
        #expect(env.actions == [.overlay(false), .flush(.close, open: nil), .resume])
        #expect(machine.isOpening && machine.isDecoding && machine.holds(7))
        env.clear()
        machine.step(env)
        machine.step(env)
        #expect(env.actions == [.waitedForLive, .waitedForLive], "waiting, nothing opened")
        env.live[Self.radio.path] = .ready
        env.clear()
        machine.step(env)
        // Opened with no seek (a saved position means nothing to a stream), marked at the stream's frame.
        #expect(env.actions == [
            .overlay(false), .open(7, at: nil), .flush(.drop, open: Self.cd), .resetConverter,
            .configure(source: Self.cd, device: Self.cd), .mark(.trackStart, 7, frame: 0, holds: false),
            .event(.decodingStarted(7)), .resume,
        ])
        #expect(!machine.isOpening)
    }

    @Test func commandsAreTakenWhileItConnects() {
        var machine = DecoderMachineTests.machine()
        let env = Self.environment()
        env.live[Self.radio.path] = .pending
        machine.handle(.start(Self.radio, frame: 0, generation: 1, countIn: nil), env)
        machine.handle(.setUpcoming(after: 7, Self.a), env)
        #expect(machine.holds(1), "the successor is kept while waiting")
        // The listener gives up and plays a file: the stream is no longer held.
        machine.handle(.start(Self.a, frame: 0, generation: 2, countIn: nil), env)
        #expect(!machine.holds(7) && machine.holds(1) && !machine.isOpening)
        machine.handle(.start(Self.radio, frame: 0, generation: 3, countIn: nil), env)
        machine.handle(.stop, env)
        #expect(machine.phase == .idle && !machine.holds(7))
    }

    @Test func aStreamThatFailsIsReportedAndTheNextAsked() {
        var machine = DecoderMachineTests.machine()
        let env = Self.environment()
        env.live[Self.radio.path] = .pending
        machine.handle(.start(Self.radio, frame: 0, generation: 1, countIn: nil), env)
        env.live[Self.radio.path] = .failed("stream http://radio.example/live: the server answered HTTP 404")
        env.clear()
        machine.step(env)
        #expect(env.actions == [.closeDecoder,
                                .event(.trackFailed(7, "stream http://radio.example/live: the server answered HTTP 404"))])
        #expect(machine.phase == .awaitingSuccessor(after: 7))
        machine.handle(.setUpcoming(after: 7, Self.a), env)
        #expect(DecoderMachineTests.position(machine) == 0 && machine.holds(1))
    }

    @Test func aFileHandsOverToAStreamWhenItIsReadyWithoutDroppingTheTail() {
        var machine = DecoderMachineTests.machine()
        let env = Self.environment()
        env.live[Self.radio.path] = .pending
        machine.handle(.start(Self.a, frame: 0, generation: 1, countIn: nil), env)
        machine.handle(.setUpcoming(after: 1, Self.radio), env)
        env.clear()
        DecoderMachineTests.step(&machine, env) { $0.isOpening }
        #expect(DecoderMachineTests.decoded(env.actions) == 10_000)
        #expect(!env.actions.contains { if case .flush = $0 { true } else { false } }, "A's tail stays to be heard")
        env.live[Self.radio.path] = .ready
        env.clear()
        machine.step(env)
        #expect(env.actions == [.open(7, at: nil), .configure(source: Self.cd, device: Self.cd),
                                .mark(.trackStart, 7, frame: 0, holds: false), .event(.decodingStarted(7))])
    }

    @Test func aStreamPlaysAtItsOwnPaceAndLoopsNot() {
        var machine = DecoderMachineTests.machine()
        let env = Self.environment()
        machine.handle(.setTempo(0.8), env)
        machine.handle(.start(Self.radio, frame: 0, generation: 1, countIn: nil), env)
        #expect(machine.tempo == 1, "a stream is not slowed down")
        env.clear()
        machine.handle(.setTempo(0.7), env)
        #expect(env.actions.isEmpty, "no splice, no tempo change while the stream plays")
        #expect(machine.listenerTempo == 0.7)
        machine.handle(.setLoop(entry: 7, LoopRegion(start: 0, end: 1000)), env)
        env.clear()
        DecoderMachineTests.step(&machine, env, limit: 5) { _ in false }
        #expect(!env.actions.contains { if case .seam = $0 { true } else { false } }, "no seam in a stream")
        #expect(DecoderMachineTests.decoded(env.actions) == 5 * DecoderMachine.chunkFrames)
    }
}
