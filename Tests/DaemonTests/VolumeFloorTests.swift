import FermataCore
import Player
import Testing
import TestSupport

/// The volume floor (`audio.volume_min`) is kept by the player itself, as the ceiling is, so every path that sets the
/// volume keeps it (the buttons, the encoder, clients, cards and alarms all set it through the player's actions).
@Suite(.serialized) struct VolumeFloorTests {
    @Test func nothingSetsTheVolumeBelowTheFloor() async throws {
        let rig = NullSinkPlayer()
        defer { rig.stop() }
        let player = rig.player
        try await player.perform(.setVolume(10))
        await player.setVolumeFloor(25)
        #expect(await player.status().volume == 25, "raised at once")
        try await player.perform(.setVolume(0))
        #expect(await player.status().volume == 25, "MPD's mute is the floor")
        try await player.perform(.changeVolume(by: -100))
        #expect(await player.status().volume == 25)
        try await player.perform(.changeVolume(by: 10))
        #expect(await player.status().volume == 35)
        await player.setVolumeFloor(0)
        try await player.perform(.setVolume(0))
        #expect(await player.status().volume == 0, "0 is no floor")
    }

    /// A card's cap below the floor wins: the cap is a promise about loudness.
    @Test func aCeilingBelowTheFloorWins() async throws {
        let rig = NullSinkPlayer()
        defer { rig.stop() }
        let player = rig.player
        await player.setVolumeFloor(30)
        await player.setVolumeCeiling(20)
        #expect(await player.status().volume == 20)
        try await player.perform(.setVolume(5))
        #expect(await player.status().volume == 20)
        await player.setVolumeCeiling(100)
        try await player.perform(.setVolume(5))
        #expect(await player.status().volume == 30)
    }
}
