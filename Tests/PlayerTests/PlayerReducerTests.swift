import AudioCore
@testable import Engine
import FermataCore
@testable import Player
import TestSupport
import Testing

/// The player's reducer on its own: `PlayerState.reduce(command, heard:)` with no actor, no engine, no thread and no
/// file. Each test states what the engine heard, sends commands, and checks the new state and every effect asked
/// for: the engine orders, the one save, the notifications.
@Suite struct PlayerReducerTests {
    /// A state with `count` queued files, stopped, seeded randomness.
    static func state(_ count: Int = 3, seed: UInt64 = 1) -> PlayerState {
        var state = PlayerState(musicDirectory: "/music", random: SplitMix64(seed: seed))
        state.queue.insert(uris: (0..<count).map { "t\($0).flac" }, at: nil, using: &state.random)
        return state
    }

    /// What the engine hears: nothing yet, or `entry` at `frame` of start `generation`.
    static func heard(_ entry: EntryID? = nil, frame: Int64 = 0, rate: Int = 44_100, generation: Int = 0,
                      state: PlayState = .stopped) -> EnginePosition {
        EnginePosition(state: state, entryID: entry, sourceFrame: frame, sourceRate: entry == nil ? 0 : rate,
                       deviceFormat: nil, waitingForDevice: false, generation: generation)
    }

    /// The snapshot a step saved (nil: none), whichever kind of save it was.
    static func saved(_ effects: PlayerEffects) -> PlayerSnapshot? {
        switch effects.save {
        case let .state(snapshot)?, let .stateAndQueue(snapshot, _)?: snapshot
        case nil: nil
        }
    }

    static func starts(_ effects: PlayerEffects) -> [(entry: EntryID, frame: Int64, generation: Int)] {
        effects.engine.compactMap {
            if case let .start(item, frame, _, generation) = $0 { (item.entryID, frame, generation) } else { nil }
        }
    }

    // MARK: transport

    @Test func playStartsTheFirstEntryWithTheCountInAndSavesItPlaying() throws {
        var state = Self.state()
        let plan = CountInPlan(beats: 4, bpm: 120)
        _ = try state.reduce(.action(.countIn(plan)), heard: Self.heard())
        let effects = try state.reduce(.action(.play), heard: Self.heard())
        let first = state.queue.entries[0]
        #expect(effects.engine == [.setPaused(false),
                                   .start(state.item(first), frame: 0, countIn: plan, generation: 1)])
        #expect(state.transport.isPlaying && state.current == first.id)
        #expect(Self.saved(effects)?.transport == .playing && Self.saved(effects)?.currentEntry == first.id)
        #expect(effects.changes == [.player])
        #expect(effects.resolveRateOf?.generation == 1, "the rate of a file not heard yet is read by the driver")
    }

    @Test func everyTransportCommandAsksForExactlyOneSave() throws {
        var state = Self.state()
        _ = try state.reduce(.action(.play), heard: Self.heard())
        let playing = Self.heard(1, frame: 44_100 * 5, generation: 1, state: .playing)
        for action in [ControlAction.pause, .resume, .next, .previousEntry, .seek(seconds: 2), .seekBy(seconds: 1),
                       .togglePause, .playPause, .stop, .play] {
            let effects = try state.reduce(.action(action), heard: playing)
            #expect(effects.save != nil, "\(action) saves its new state before the client hears OK")
        }
        // Events that change nothing durable save nothing.
        let before = state.modes.tempoPercent
        let effects = try state.reduce(.tempoChanged(0.9, entry: 1, pass: 3), heard: playing)
        #expect(effects.save == nil && state.modes.tempoPercent == before, "the trainer's tempo waits for its pass")
        let heard = try state.reduce(.passHeard(1, pass: 3), heard: playing)
        #expect(heard.save == nil && state.modes.tempoPercent == 90)
    }

    @Test func aFailedCommandChangesNothingAndAsksForNothing() {
        var state = Self.state()
        let before = state.snapshot(Self.heard())
        #expect(throws: Player.ActionError.notPlaying) { try state.reduce(.action(.seek(seconds: 3)), heard: Self.heard()) }
        #expect(throws: Player.ActionError.noSuchEntry(99)) { try state.reduce(.remove([1, 99]), heard: Self.heard()) }
        #expect(state.snapshot(Self.heard()) == before && state.queue.count == 3, "nothing removed, not even id 1")
    }

    @Test func startsAreNumberedByTheStateAndAnOlderStartsAudibleEventIsStale() throws {
        var state = Self.state()
        _ = try state.reduce(.action(.play), heard: Self.heard())
        let next = try state.reduce(.action(.next), heard: Self.heard(1, generation: 1, state: .playing))
        #expect(Self.starts(next).map(\.generation) == [2] && state.current == 2)
        // Entry 1's audible event from start 1 arrives after the `next`: it must not bring entry 1 back.
        let stale = try state.reduce(.trackAudible(1, generation: 1), heard: Self.heard(1, generation: 1))
        #expect(state.current == 2 && stale.save == nil && stale.changes.isEmpty)
        // A stop, then the event of the start it ended: the cursor stays where the stop left it, nothing is saved.
        _ = try state.reduce(.action(.stop), heard: Self.heard(1, generation: 1))
        let late = try state.reduce(.trackAudible(2, generation: 2), heard: Self.heard(2, generation: 2))
        #expect(state.transport.isStopped && late.save == nil)
    }

    @Test func aSkipWhilePausedStaysPausedAndASeekThenBuildsOnTheSkip() throws {
        var state = Self.state()
        _ = try state.reduce(.action(.play), heard: Self.heard())
        _ = try state.reduce(.action(.pause), heard: Self.heard(1, frame: 1000, generation: 1, state: .paused))
        let paused = Self.heard(1, frame: 1000, generation: 1, state: .paused)
        let skip = try state.reduce(.action(.next), heard: paused)
        #expect(skip.engine.first == .setPaused(true) && state.transport.state == .paused)
        // The rate of entry 2 arrives from its file; a seek then converts at it, from the skip, not from entry 1.
        _ = try state.reduce(.rateResolved(generation: 2, rate: 48_000), heard: paused)
        let seek = try state.reduce(.action(.seek(seconds: 10)), heard: paused)
        #expect(Self.starts(seek).map(\.entry) == [2] && Self.starts(seek).map(\.frame) == [480_000])
        #expect(state.status(paused).elapsed == 10 && state.status(paused).state == .paused)
        // An answer for a start no longer asked for is dropped.
        _ = try state.reduce(.rateResolved(generation: 2, rate: 8_000), heard: paused)
        #expect(state.transport.requestedStart?.rate == 48_000)
    }

    @Test func seekIntoAnotherEntryIsOneStartAtTheFramesOfThatEntrysRate() throws {
        var state = Self.state()
        _ = try state.reduce(.action(.play), heard: Self.heard())
        let effects = try state.reduce(.seekEntry(3, seconds: 2.5, rate: 96_000),
                                       heard: Self.heard(1, generation: 1, state: .playing))
        #expect(Self.starts(effects).map(\.entry) == [3] && Self.starts(effects).map(\.frame) == [240_000])
        #expect(Self.saved(effects)?.positionFrames == 240_000 && Self.saved(effects)?.currentEntry == 3)
    }

    // MARK: the two races of the issue, as interleavings

    /// `remove` of the playing entry used to pick the next entry, await the save, then start what it had picked: a
    /// second client's `delete` of that entry, landing in the await, left the player starting an entry no longer
    /// queued. As steps, the start is in the same step as the edit; whichever order the two deletes come in, every
    /// start names an entry still queued when its step ends, and the player ends on a queued entry.
    @Test func removingThePlayingEntryNeverStartsAnEntryAnotherClientRemoved() throws {
        for secondFirst in [false, true] {
            var state = Self.state(4)
            _ = try state.reduce(.action(.play), heard: Self.heard())
            let playing = Self.heard(1, generation: 1, state: .playing)
            let steps: [PlayerCommand] = secondFirst ? [.remove([2]), .remove([1])] : [.remove([1]), .remove([2])]
            for command in steps {
                let effects = try state.reduce(command, heard: playing)
                for start in Self.starts(effects) {
                    #expect(state.queue.entry(id: start.entry) != nil, "started \(start.entry), not queued")
                }
            }
            #expect(state.current == 3 && state.transport.isPlaying)
        }
    }

    /// `clear` used to await the stop before emptying the queue: another client's `play` in between started an entry
    /// of the queue about to be emptied. As steps, the clear stops and empties in one; a `play` after it finds the
    /// queue empty and changes nothing.
    @Test func clearStopsAndEmptiesInOneStepSoAPlayAfterItFindsNothing() throws {
        var state = Self.state()
        _ = try state.reduce(.action(.play), heard: Self.heard())
        let playing = Self.heard(1, generation: 1, state: .playing)
        let clear = try state.reduce(.clear, heard: playing)
        #expect(clear.engine.contains(.stop) && state.queue.isEmpty && state.transport.isStopped && state.current == nil)
        guard case let .stateAndQueue(snapshot, queue)? = clear.save else {
            Issue.record("the clear saves the queue with the stop")
            return
        }
        #expect(queue.isEmpty && snapshot.transport == .stopped && snapshot.currentEntry == nil)
        #expect(throws: Player.ActionError.emptyQueue) { try state.reduce(.action(.play), heard: playing) }
    }

    // MARK: queue, modes and events

    @Test func nextUnderConsumeRemovesTheEntryAndSavesStateAndQueueTogether() throws {
        var state = Self.state()
        _ = try state.reduce(.consume(.oneshot), heard: Self.heard())
        _ = try state.reduce(.action(.play), heard: Self.heard())
        let effects = try state.reduce(.action(.next), heard: Self.heard(1, generation: 1, state: .playing))
        #expect(state.queue.entries.map(\.id) == [2, 3] && state.current == 2)
        #expect(state.modes.consume == .off, "oneshot: off after one")
        guard case let .stateAndQueue(snapshot, queue)? = effects.save else {
            Issue.record("one save with the queue")
            return
        }
        #expect(queue.entries.map(\.id) == [2, 3] && snapshot.currentEntry == 2)
        #expect(effects.changes.contains(.queue) && effects.changes.contains(.options))
        #expect(effects.engine.contains(.setUpcoming(after: 2, state.item(state.queue.entries[1]))))
    }

    @Test func theQueueEndingUnderSingleOneshotPausesAtTheNextEntryAndSwitchesItOff() throws {
        var state = Self.state()
        _ = try state.reduce(.singleOneshot, heard: Self.heard())
        _ = try state.reduce(.action(.play), heard: Self.heard())
        let effects = try state.reduce(.ended, heard: Self.heard(1, generation: 1, state: .stopped))
        #expect(state.transport.state == .paused && state.current == 2)
        #expect(!state.modes.single && !state.modes.singleOneshot)
        #expect(effects.engine.prefix(2) == [.stop, .setPaused(true)] && Self.starts(effects).map(\.entry) == [2])
        #expect(Self.saved(effects)?.transport == .paused)
    }

    @Test func insertAnswersTheNewIdsAndRefusesPastTheLimitWithoutAddingAny() throws {
        var state = Self.state(2)
        let effects = try state.reduce(.insert(uris: ["x.flac", "y.flac"], replayGain: [.init(), .init()], at: 1),
                                       heard: Self.heard())
        #expect(effects.added == [3, 4] && state.queue.entries.map(\.id) == [1, 3, 4, 2])
        let many = Array(repeating: "z.flac", count: Player.maxQueueLength)
        #expect(throws: Player.ActionError.queueFull) {
            try state.reduce(.insert(uris: many, replayGain: many.map { _ in .init() }, at: nil), heard: Self.heard())
        }
        #expect(state.queue.count == 4)
    }

    @Test func aTrackAnnouncementRenderedForAnEntryNoLongerNextIsNotGiven() throws {
        var state = Self.state()
        _ = try state.reduce(.action(.setAnnouncements(duck: true, onTrackChange: true)), heard: Self.heard())
        let speech = Speech(samples: [0.1, 0.2], rate: 22_050)
        let current = try state.reduce(.decodingStarted(1, announcement: (2, speech)), heard: Self.heard())
        #expect(current.engine.first == .prepareTrackAnnouncement(2, speech, duck: true))
        // The words were for entry 3, but a queue edit during the rendering made entry 2 the next.
        let stale = try state.reduce(.decodingStarted(1, announcement: (3, speech)), heard: Self.heard())
        #expect(stale.engine == [.setUpcoming(after: 1, state.item(state.queue.entries[1]))])
    }

    @Test func aCheckpointWritesTheHeardPositionOnceAndNotWhileAJumpIntoALoopIsOnItsWay() throws {
        var state = Self.state()
        _ = try state.reduce(.action(.play), heard: Self.heard())
        let at = Self.heard(1, frame: 441_000, generation: 1, state: .playing)
        #expect(try state.reduce(.checkpoint, heard: at).checkpoint == CheckpointWrite(entry: 1, frame: 441_000,
                                                                                        sampleRate: 44_100))
        #expect(try state.reduce(.checkpoint, heard: at).checkpoint == nil, "the same position is not written again")
        // A loop set behind the position: until the jump is heard, the saved place is the loop's start.
        let loop = try state.reduce(.action(.setLoop(startSeconds: 1, endSeconds: 2)), heard: at)
        #expect(Self.saved(loop)?.positionFrames == 44_100)
        #expect(try state.reduce(.checkpoint, heard: Self.heard(1, frame: 441_100, generation: 1)).checkpoint == nil)
        let jumped = Self.heard(1, frame: 50_000, generation: 1, state: .playing)
        #expect(try state.reduce(.checkpoint, heard: jumped).checkpoint?.frame == 50_000)
    }

    /// A checkpoint between a seek and the moment the engine hears it would write the place before the seek — with a
    /// write number taken after the seek's save, so the store kept it: the power-cut campaign resumed 51 s into a
    /// track the listener had just sought back to its start. Until the start is heard, no checkpoint.
    @Test func noCheckpointOfThePlaceBeforeASeekThatIsNotHeardYet() throws {
        var state = Self.state()
        _ = try state.reduce(.action(.play), heard: Self.heard())
        let late = Self.heard(1, frame: 44_100 * 51, generation: 1, state: .playing)
        let seek = try state.reduce(.action(.seek(seconds: 0.3)), heard: late)
        #expect(Self.saved(seek)?.positionFrames == 13_230)
        #expect(try state.reduce(.checkpoint, heard: late).checkpoint == nil, "the engine has not heard the seek")
        let heardSeek = Self.heard(1, frame: 20_000, generation: 2, state: .playing)
        #expect(try state.reduce(.checkpoint, heard: heardSeek).checkpoint?.frame == 20_000)
    }

    /// A tempo from the engine or a trainer is turned into percent without a trap, whatever the value.
    @Test func anOutOfRangeTempoNeverTraps() throws {
        var state = Self.state()
        for (pass, (ratio, percent)) in [(Double.nan, 100), (.infinity, 100), (1e300, 150), (-3, 50), (0.9, 90)]
            .enumerated() {
            _ = try state.reduce(.tempoChanged(ratio, entry: 1, pass: pass + 2), heard: Self.heard())
            _ = try state.reduce(.passHeard(1, pass: pass + 2), heard: Self.heard())
            #expect(state.modes.tempoPercent == percent, "\(ratio)")
        }
        let bad = SpeedTrainerPlan(startPercent: Int.min, stepPercent: Int.max, everyPasses: 0, ceilingPercent: 100)
        #expect(throws: Player.ActionError.self) { try state.reduce(.action(.speedTrainer(bad)), heard: Self.heard()) }
        #expect(state.modes.tempoPercent == 90)
    }

    @Test func aPracticeMemoryArrivingAfterTheListenersOwnTempoIsRefused() throws {
        var state = Self.state()
        _ = try state.reduce(.action(.play), heard: Self.heard())
        let playing = Self.heard(1, frame: 1000, generation: 1, state: .playing)
        _ = try state.reduce(.action(.setTempo(percent: 80)), heard: playing)
        #expect(throws: PracticeMemorySuperseded.self) {
            try state.reduce(.action(.practiceMemory(entry: 1, tempoPercent: 60, loop: nil, transposeCents: 0, beat: nil)),
                             heard: playing)
        }
        #expect(state.modes.tempoPercent == 80)
        // The next entry starts fresh: its memory applies.
        _ = try state.reduce(.action(.next), heard: playing)
        let effects = try state.reduce(
            .action(.practiceMemory(entry: 2, tempoPercent: 60, loop: nil, transposeCents: 0, beat: nil)),
            heard: Self.heard(2, generation: 2, state: .playing))
        #expect(effects.engine == [.setTempo(0.6)] && state.modes.tempoPercent == 60)
    }

    // MARK: the beat: tap tempo, the count-in, "Again!" by bars

    /// Four taps 500 ms apart give the playing entry a beat of 120; the count-in of the next play of that entry counts
    /// at it, and the count-in before each loop pass follows it at once. The beat is the entry's: another has none.
    @Test func tappedBeatBelongsToItsEntryAndTheCountInCountsAtIt() throws {
        var state = Self.state()
        _ = try state.reduce(.action(.countIn(CountInPlan(beats: 4, beforeEachPass: true))), heard: Self.heard())
        _ = try state.reduce(.action(.play), heard: Self.heard())
        let playing = Self.heard(1, frame: 44_100, generation: 1, state: .playing)
        var orders: [EngineOrder] = [], saves: [PlayerEffects] = []
        for tap in 0..<4 {
            let effects = try state.reduce(.action(.tapTempo(atNanoseconds: 9_000_000_000 + UInt64(tap) * 500_000_000)),
                                           heard: playing)
            orders += effects.engine
            if effects.save != nil { saves.append(effects) }
        }
        let bpm = try #require(state.status(playing).beat?.bpm)
        #expect(abs(bpm - 120) < 1e-9)
        #expect(orders == [.setPassCountIn(CountInPlan(beats: 4, bpm: bpm, beforeEachPass: true))],
                "told once, at the second tap; the same beat again changes nothing")
        // Saved with the state once, by the tap that gave the beat: a tap that changes nothing writes nothing.
        #expect(saves.count == 1 && saves.first.flatMap(Self.saved)?.beat?.bpm == bpm, "saved with the state")
        let again = try state.reduce(.action(.playEntry(1)), heard: playing)
        #expect(again.engine.contains(.start(state.item(state.queue.entries[0]), frame: 0,
                                             countIn: CountInPlan(beats: 4, bpm: bpm, beforeEachPass: true), generation: 2)))
        // The next entry has no beat of its own: its count-in falls back to its tag (nil here: the engine reads it).
        let next = try state.reduce(.action(.next), heard: Self.heard(1, frame: 100, generation: 2, state: .playing))
        #expect(state.status(Self.heard(2, generation: 3, state: .playing)).beat == nil)
        #expect(!next.engine.contains { if case .start(_, _, let plan?, _) = $0 { plan.bpm != nil } else { false } })
        // An explicit count-in tempo wins over the tapped beat.
        _ = try state.reduce(.action(.previousEntry), heard: Self.heard(2, generation: 3, state: .playing))
        _ = try state.reduce(.action(.countIn(CountInPlan(beats: 2, bpm: 90))), heard: Self.heard(1, generation: 4, state: .playing))
        #expect(state.countIn(for: 1)?.bpm == 90)
    }

    /// "Again!" by bars: 2 bars of 4 at 120 BPM are 4 s of the track, at any tempo (bars are track time); without a
    /// beat, the file's tag read for the current entry counts, a tag read for another entry does not, and none is a
    /// clear refusal. A second press clears the loop.
    @Test func againByBarsLoopsTheLastBarsOfTheTrackAtItsBeat() throws {
        var state = Self.state()
        _ = try state.reduce(.action(.play), heard: Self.heard())
        let playing = Self.heard(1, frame: 44_100 * 10, generation: 1, state: .playing)
        _ = try state.reduce(.action(.setTempo(percent: 80)), heard: playing)
        #expect(throws: Player.ActionError.invalidValue("no beat known for this track: tap it, or set it with bpm")) {
            try state.reduce(.action(.loopLastBars(2, beatsPerBar: 4)), heard: playing)
        }
        #expect(throws: Player.ActionError.self) {
            try state.reduce(.action(.loopLastBars(2, beatsPerBar: 4), read: FileFacts(entry: 2, taggedBPM: 120)),
                             heard: playing)
        }
        _ = try state.reduce(.action(.loopLastBars(2, beatsPerBar: 4), read: FileFacts(entry: 1, taggedBPM: 120)),
                             heard: playing)
        #expect(state.status(playing).loop == LoopRegion(start: 44_100 * 6, end: 44_100 * 10))
        _ = try state.reduce(.action(.loopLastBars(2, beatsPerBar: 4)), heard: playing)
        #expect(state.status(playing).loop == nil, "pressed again: straight on")
        // The listener's beat wins over the tag: 3 bars of 3 at 90 BPM are 6 s.
        _ = try state.reduce(.action(.setBeat(TrackBeat(bpm: 90))), heard: playing)
        _ = try state.reduce(.action(.loopLastBars(3, beatsPerBar: 3), read: FileFacts(entry: 1, taggedBPM: 120)),
                             heard: playing)
        #expect(state.status(playing).loop == LoopRegion(start: 44_100 * 4, end: 44_100 * 10))
        for (bars, beats) in [(0, 4), (65, 4), (2, 0), (2, 17), (Int.max, Int.max), (Int.min, 4)] {
            #expect(throws: Player.ActionError.self) {
                try state.reduce(.action(.loopLastBars(bars, beatsPerBar: beats)), heard: playing)
            }
        }
        for bpm in [Double.nan, .infinity, 19.9, 400.1, -120] {
            #expect(throws: Player.ActionError.self) { try state.reduce(.action(.setBeat(TrackBeat(bpm: bpm))), heard: playing) }
        }
    }

    // MARK: sections

    static let sections = [
        PracticeSection(name: "intro", startMilliseconds: 1_000, endMilliseconds: 3_000, passes: 4),
        PracticeSection(name: "solo", startMilliseconds: 10_000, endMilliseconds: 12_000, tempoPercent: 75),
        PracticeSection(name: "outro", startMilliseconds: 20_000, endMilliseconds: 24_000),
    ]

    /// Next and previous step through the track's sections (from the one whose region is the loop; with none, from
    /// where playback is), wrapping round; each step is one start at the section's start, its region as the loop
    /// (passes: jumps back one fewer), its tempo, and one save.
    @Test func sectionsStepNextAndPreviousInOneStepEach() throws {
        var state = Self.state()
        _ = try state.reduce(.action(.play), heard: Self.heard())
        var heard = Self.heard(1, frame: 44_100 * 5, generation: 1, state: .playing)
        #expect(throws: Player.ActionError.self) { try state.reduce(.action(.playSection(.next)), heard: heard) }
        _ = try state.reduce(.action(.setSections(entry: 1, Self.sections)), heard: heard)
        #expect(state.status(heard).sections == Self.sections && state.status(heard).activeSection == nil)

        // At 5 s with no section playing, next is the first that starts later: solo.
        var effects = try state.reduce(.action(.playSection(.next)), heard: heard)
        #expect(Self.starts(effects).map(\.frame) == [44_100 * 10])
        #expect(effects.engine.contains(.setTempo(0.75)))
        #expect(effects.engine.contains(.setLoop(entry: 1, LoopRegion(start: 441_000, end: 529_200))))
        #expect(Self.saved(effects)?.loop?.region == LoopRegion(start: 441_000, end: 529_200))
        heard = Self.heard(1, frame: 441_000, generation: 2, state: .playing)
        #expect(state.status(heard).activeSection == 1)

        effects = try state.reduce(.action(.playSection(.next)), heard: heard)
        #expect(Self.starts(effects).map(\.frame) == [44_100 * 20])
        heard = Self.heard(1, frame: 44_100 * 21, generation: 3, state: .playing)
        effects = try state.reduce(.action(.playSection(.next)), heard: heard)
        #expect(Self.starts(effects).map(\.frame) == [44_100], "after the last, the first")
        #expect(effects.engine.contains(.setLoop(entry: 1, LoopRegion(start: 44_100, end: 132_300, repeatCount: 3))),
                "4 passes: 3 jumps back")
        heard = Self.heard(1, frame: 44_100, generation: 4, state: .playing)
        effects = try state.reduce(.action(.playSection(.previous)), heard: heard)
        #expect(Self.starts(effects).map(\.frame) == [44_100 * 20], "before the first, the last")
        _ = try state.reduce(.action(.playSection(.named("solo"))), heard: Self.heard(1, frame: 44_100 * 20, generation: 5,
                                                                                     state: .playing))
        #expect(state.loopMarks.loop?.region.start == 441_000)
        #expect(throws: Player.ActionError.self) {
            try state.reduce(.action(.playSection(.named("coda"))), heard: heard)
        }
        #expect(throws: Player.ActionError.self) { try state.reduce(.action(.playSection(.index(3))), heard: heard) }
        #expect(throws: Player.ActionError.self) { try state.reduce(.action(.playSection(.index(-1))), heard: heard) }
    }

    /// Sections are the entry's: another entry shows none; an invalid list or an entry no longer queued is refused.
    @Test func sectionsBelongToTheirEntry() throws {
        var state = Self.state()
        _ = try state.reduce(.action(.play), heard: Self.heard())
        let heard = Self.heard(1, frame: 0, generation: 1, state: .playing)
        _ = try state.reduce(.action(.setSections(entry: 1, Self.sections)), heard: heard)
        _ = try state.reduce(.action(.next), heard: heard)
        #expect(state.status(Self.heard(2, generation: 2, state: .playing)).sections.isEmpty)
        #expect(throws: Player.ActionError.noSuchEntry(99)) {
            try state.reduce(.action(.setSections(entry: 99, Self.sections)), heard: heard)
        }
        let bad = PracticeSection(name: "", startMilliseconds: 5, endMilliseconds: 1)
        #expect(throws: Player.ActionError.self) { try state.reduce(.action(.setSections(entry: 2, [bad])), heard: heard) }
        let tooMany = (0...PracticeSection.maxPerTrack).map {
            PracticeSection(name: "s\($0)", startMilliseconds: Int64($0) * 10, endMilliseconds: Int64($0) * 10 + 5)
        }
        #expect(throws: Player.ActionError.self) { try state.reduce(.action(.setSections(entry: 2, tooMany)), heard: heard) }
    }

    // MARK: the click over the track

    /// Turning the click on tells the engine the plan with the listener's beat and the entry it belongs to; a new beat
    /// tells it again; both are saved with the state and shown in the status; a bad plan or beat changes nothing.
    @Test func theMetronomeTellsTheEngineItsPlanAndTheEntrysBeat() throws {
        var state = Self.state()
        let stopped = Self.heard()
        _ = try state.reduce(.action(.setBeat(TrackBeat(bpm: 96, offsetSeconds: 0.4))), heard: stopped)
        let plan = MetronomePlan(beatsPerBar: 3, level: 0.5)
        var effects = try state.reduce(.action(.metronome(plan)), heard: stopped)
        let grid = MetronomeSetting.EntryGrid(entry: 1, beat: TrackBeat(bpm: 96, offsetSeconds: 0.4))
        #expect(effects.engine == [.setMetronome(MetronomeSetting(plan: plan, beat: grid))])
        #expect(effects.changes == [.options] && Self.saved(effects)?.metronome == plan)
        #expect(Self.saved(effects)?.beat == TrackBeat(bpm: 96, offsetSeconds: 0.4), "the beat of the entry play starts")
        effects = try state.reduce(.action(.setBeat(TrackBeat(bpm: 100))), heard: stopped)
        #expect(effects.engine.contains(.setMetronome(MetronomeSetting(
            plan: plan, beat: .init(entry: 1, beat: TrackBeat(bpm: 100))))))
        for bad in [MetronomePlan(beatsPerBar: 0), MetronomePlan(level: .nan), MetronomePlan(level: 2)] {
            #expect(throws: Player.ActionError.self) { try state.reduce(.action(.metronome(bad)), heard: stopped) }
        }
        #expect(throws: Player.ActionError.self) {
            try state.reduce(.action(.setBeat(TrackBeat(bpm: 120, offsetSeconds: 61))), heard: stopped)
        }
        #expect(state.modes.metronome == plan)
        effects = try state.reduce(.action(.metronome(nil)), heard: stopped)
        #expect(effects.engine == [.setMetronome(nil)] && Self.saved(effects)?.metronome == nil)
    }

    /// The click's button: on (4 beats, full level, the first time), off, and on again as it was last set.
    @Test func theMetronomeButtonTogglesTheClickAsItWasLastSet() throws {
        var state = Self.state()
        _ = try state.reduce(.action(.toggleMetronome), heard: Self.heard())
        #expect(state.modes.metronome == MetronomePlan())
        let plan = MetronomePlan(beatsPerBar: 3, level: 0.5)
        _ = try state.reduce(.action(.metronome(plan)), heard: Self.heard())
        let off = try state.reduce(.action(.toggleMetronome), heard: Self.heard())
        #expect(state.modes.metronome == nil && off.engine.contains(.setMetronome(nil)) && off.save != nil)
        let on = try state.reduce(.action(.toggleMetronome), heard: Self.heard())
        #expect(state.modes.metronome == plan && on.save != nil)
    }
}
