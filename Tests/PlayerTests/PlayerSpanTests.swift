import AudioCore
@testable import Engine
import FermataCore
@testable import Player
import TestSupport
import Testing

/// Queue entries that play part of their file (MPD's `rangeid`, a section queued by name), in the reducer: which
/// entries may change, what the engine is told, and whose tempo is heard.
@Suite struct PlayerSpanTests {
    typealias R = PlayerReducerTests
    static let slow = PlaySpan(startMilliseconds: 1_000, endMilliseconds: 2_000, passes: 4, tempoPercent: 80, section: "solo")

    @Test func theEntryPlayingIsRefusedAndTheOneQueuedNextIsHandedToTheEngineAgain() throws {
        var state = R.state()
        _ = try state.reduce(.action(.play), heard: R.heard())
        let playing = R.heard(1, frame: 44_100, generation: 1, state: .playing)
        _ = try state.reduce(.trackAudible(1, generation: 1), heard: playing)
        #expect(throws: Player.ActionError.currentEntryLocked) { try state.reduce(.setSpan(1, Self.slow), heard: playing) }
        #expect(throws: Player.ActionError.noSuchEntry(9)) { try state.reduce(.setSpan(9, Self.slow), heard: playing) }
        let bad = PlaySpan(startMilliseconds: 5, endMilliseconds: 5)
        #expect(throws: Player.ActionError.self) { try state.reduce(.setSpan(2, bad), heard: playing) }
        let version = state.queue.version
        let effects = try state.reduce(.setSpan(2, Self.slow), heard: playing)
        #expect(state.queue.entry(id: 2)?.span == Self.slow && state.queue.version == version + 1)
        #expect(effects.changes.contains(.queue) && effects.save != nil)
        let upcoming = effects.engine.compactMap { order -> PlayableItem? in
            if case let .setUpcoming(after: 1, item?) = order { item } else { nil }
        }
        #expect(upcoming.map(\.span) == [Self.slow], "the engine decodes the next entry with its new part: \(effects.engine)")
        // The same part again changes nothing and saves nothing.
        let again = try state.reduce(.setSpan(2, Self.slow), heard: playing)
        #expect(again.save == nil && state.queue.version == version + 1)
        // Stopped, the current entry may change too (MPD refuses only while playing).
        _ = try state.reduce(.action(.stop), heard: playing)
        _ = try state.reduce(.setSpan(1, nil), heard: R.heard())
    }

    @Test func anEntrysOwnTempoIsHeardUntilTheListenerChangesItAndEndsWithTheEntry() throws {
        var state = R.state()
        _ = try state.reduce(.setSpan(2, Self.slow), heard: R.heard())
        _ = try state.reduce(.action(.playEntry(2)), heard: R.heard())
        var heard = R.heard(2, frame: 44_100, generation: 1, state: .playing)
        _ = try state.reduce(.trackAudible(2, generation: 1), heard: heard)
        #expect(state.status(heard).tempoPercent == 80 && state.status(heard).span == Self.slow)
        #expect(state.snapshot(heard).tempoPercent == 100, "the listener's tempo is what is saved")
        // A practice memory is not for a queued section: refused.
        #expect(throws: PracticeMemorySuperseded.self) {
            try state.reduce(.action(.practiceMemory(entry: 2, tempoPercent: 90, loop: nil, transposeCents: 0, beat: nil)),
                             heard: heard)
        }
        // "Slower" from the 80 % heard, not from the listener's 100.
        let slower = try state.reduce(.action(.changeTempo(by: -5)), heard: heard)
        #expect(slower.engine.contains(.setTempo(0.75)) && state.status(heard).tempoPercent == 75)
        // The next entry plays at the listener's tempo, which is now 75.
        heard = R.heard(3, frame: 100, generation: 1, state: .playing)
        _ = try state.reduce(.trackAudible(3, generation: 1), heard: heard)
        #expect(state.status(heard).tempoPercent == 75 && state.status(heard).span == nil)
        // And "100" on a section at 80 % is a change though the listener's tempo is already 100.
        state.modes.tempoPercent = 100
        _ = try state.reduce(.action(.playEntry(2)), heard: heard)
        heard = R.heard(2, frame: 44_100, generation: 2, state: .playing)
        _ = try state.reduce(.trackAudible(2, generation: 2), heard: heard)
        #expect(state.status(heard).tempoPercent == 80)
        let back = try state.reduce(.action(.setTempo(percent: 100)), heard: heard)
        #expect(back.engine.contains(.setTempo(1)) && state.status(heard).tempoPercent == 100)
    }
}
