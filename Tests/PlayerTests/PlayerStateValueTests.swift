import FermataCore
@testable import Player
import Testing

/// The player's state values on their own, no engine and no actor: the transport (the one truth `status`, snapshots
/// and `isPlaying` answer from) and the loop marks (the A/B rules the loop buttons follow).
@Suite struct PlayerStateValueTests {
    private func started(_ entry: EntryID, generation: Int, paused: Bool = false) -> PlayerTransport {
        .running(RunningTransport(entry: entry, paused: paused,
                                  start: RequestedStart(generation: generation, entry: entry, frame: 0, rate: nil)))
    }

    @Test func pauseDoesNothingWhileStoppedAndStopKeepsTheEntry() {
        var transport = PlayerTransport.initial
        let pausedWhileStopped = transport.setPaused(true)
        #expect(!pausedWhileStopped, "MPD: pause has no effect when stopped")
        #expect(transport.state == .stopped)
        transport = started(7, generation: 3)
        #expect(transport.isPlaying && transport.current == 7)
        let paused = transport.setPaused(true)
        #expect(paused)
        #expect(transport.state == .paused && !transport.isPlaying)
        transport.stop()
        #expect(transport.state == .stopped && transport.current == 7, "play starts again from the entry it was on")
        #expect(transport.requestedStart == nil && transport.lastStartGeneration == 3)
    }

    @Test func anAudibleEventFromAnOlderStartIsStaleEvenAfterAStop() {
        var transport = started(1, generation: 5)
        let stale = transport.heard(9, generation: 4)
        #expect(!stale, "a start before the last one asked")
        #expect(transport.current == 1)
        let handOver = transport.heard(2, generation: 5)
        #expect(handOver, "a gapless hand-over within the same start")
        #expect(transport.current == 2)
        transport.stop()
        let staleAfterStop = transport.heard(9, generation: 4)
        #expect(!staleAfterStop)
        #expect(transport.current == 2)
        // The last start's own event arriving after the stop (or a clear, or `next` past the end, which leave no
        // cursor) is stale too: the durability property test found it put the cursor back, and saved.
        transport.moveCursor(to: nil)
        let lateAfterStop = transport.heard(2, generation: 5)
        #expect(!lateAfterStop)
        #expect(transport.current == nil && transport.isStopped)
    }

    @Test func failuresInARowCountUntilSomethingIsHeard() {
        var transport = started(1, generation: 1)
        let first = transport.failed(), second = transport.failed()
        #expect(first == 1 && second == 2)
        _ = transport.heard(3, generation: 1)
        let afterHeard = transport.failed()
        #expect(afterHeard == 1)
    }

    @Test func loopButtonsMarkAThenBAndRefuseBBeforeA() throws {
        let a = EntryFrame(entry: 4, frame: 1_000)
        var marks = try LoopMarks.none.markingA(at: a)
        #expect(marks == .pendingA(a))
        #expect(throws: Player.ActionError.loopBBeforeA) { try marks.markingB(at: EntryFrame(entry: 4, frame: 1_000)) }
        #expect(throws: Player.ActionError.loopNeedsA) { try marks.markingB(at: EntryFrame(entry: 5, frame: 9_000)) }
        marks = try marks.markingB(at: EntryFrame(entry: 4, frame: 5_000))
        #expect(marks.loop == EntryLoop(entry: 4, region: LoopRegion(start: 1_000, end: 5_000)))
        // A again before B moves the start and keeps the loop; A after B starts a new one.
        #expect(try marks.markingA(at: EntryFrame(entry: 4, frame: 2_000)).loop?.region == LoopRegion(start: 2_000, end: 5_000))
        #expect(try marks.markingA(at: EntryFrame(entry: 4, frame: 6_000)) == .pendingA(EntryFrame(entry: 4, frame: 6_000)))
        // B again moves the end of the set loop.
        #expect(try marks.markingB(at: EntryFrame(entry: 4, frame: 8_000)).loop?.region == LoopRegion(start: 1_000, end: 8_000))
    }

    @Test func oneButtonCyclesAThenBThenOff() throws {
        var marks = LoopMarks.none
        marks = try marks.cycling(at: EntryFrame(entry: 1, frame: 100))
        marks = try marks.cycling(at: EntryFrame(entry: 1, frame: 300))
        #expect(marks.loop?.region == LoopRegion(start: 100, end: 300))
        marks = try marks.cycling(at: EntryFrame(entry: 1, frame: 400))
        #expect(marks == .none)
    }

    @Test func nudgesStayInsideTheTrackAndKeepBAfterA() throws {
        let marks = try LoopMarks.region(LoopRegion(start: 100, end: 300), on: 1)
        #expect(try marks.nudging(.a, by: -1_000).loop?.region.start == 0)
        #expect(try marks.nudging(.b, by: 50).loop?.region.end == 350)
        #expect(throws: Player.ActionError.loopBBeforeA) { try marks.nudging(.a, by: 250) }
        #expect(throws: Player.ActionError.loopNeedsA) { try LoopMarks.none.nudging(.a, by: 1) }
    }
}
