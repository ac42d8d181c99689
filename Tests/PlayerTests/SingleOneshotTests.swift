import FermataCore
import Player
import TestSupport
import Testing

/// MPD's `single oneshot` (and `single` at a track's end, as MPD 0.23 plays it): at the end of the current entry
/// playback pauses at the start of the next one ("border pause"); oneshot is then off, and the queue plays on from
/// there; at the end of the queue the player stops with no current entry.
@Suite struct SingleOneshotTests {
    @Test func pausesAtTheNextEntryOnceThenPlaysOn() async throws {
        let rig = try await TransportTests.Rig(seconds: [1, 1, 1])
        let player = rig.player
        await player.setSingleOneshot()
        let set = await player.status()
        #expect(set.single && set.singleOneshot)
        try await player.perform(.playEntry(rig.ids[0]))
        var status = await player.status()
        let deadline = ContinuousClock.now + Patience.stall  // a hang detector: the entry is 1 s long
        while status.state != .paused, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
            status = await player.status()
        }
        #expect(status.state == .paused && status.entryID == rig.ids[1] && status.elapsedFrames == 0,
                "paused at the start of the next entry: \(status.state), \(String(describing: status.entryID))")
        #expect(!status.single && !status.singleOneshot, "and single switched itself off")
        // Single off now: from the second entry the queue plays to its end, and stops with no current entry.
        try await player.perform(.play)
        await player.waitUntilStopped()
        status = await player.status()
        #expect(status.state == .stopped && status.entryID == nil, "\(String(describing: status.entryID))")
        await rig.finish()
    }

    @Test func underRepeatTheEntryRepeatsAndOneshotStays() async throws {
        let rig = try await TransportTests.Rig(seconds: [0.5, 0.5])
        let player = rig.player
        try await player.perform(.setRepeat(.queue))
        await player.setSingleOneshot()
        try await player.perform(.playEntry(rig.ids[0]))
        _ = try await rig.until { $0.sourceFrame > 0 && $0.generation > 0 }
        try await Task.sleep(for: .seconds(1.5))
        let status = await player.status()
        #expect(status.state == .playing && status.entryID == rig.ids[0], "MPD's repeat with single: the song repeats")
        #expect(status.singleOneshot)
        await rig.finish()
    }
}
