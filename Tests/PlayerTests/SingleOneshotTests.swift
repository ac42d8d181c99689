import FermataCore
import Player
import Testing

/// MPD's `single oneshot`: playback stops after the current entry once; then single is off and the queue plays on.
@Suite struct SingleOneshotTests {
    @Test func stopsAfterTheCurrentEntryOnceThenPlaysOn() async throws {
        let rig = try await TransportTests.Rig(seconds: [1, 1, 1])
        let player = rig.player
        await player.setSingleOneshot()
        let set = await player.status()
        #expect(set.single && set.singleOneshot)
        try await player.perform(.playEntry(rig.ids[0]))
        await player.waitUntilStopped()
        let stopped = await player.status()
        #expect(stopped.state == .stopped && stopped.entryID == rig.ids[0], "it stopped after the first entry")
        #expect(!stopped.single && !stopped.singleOneshot, "and single switched itself off")
        // Single off now: from the second entry the queue plays to its end.
        try await player.perform(.playEntry(rig.ids[1]))
        await player.waitUntilStopped()
        #expect(await player.status().entryID == rig.ids[2])
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
