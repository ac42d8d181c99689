import AudioCore
import Decoders
import Engine
import FermataCore
@testable import Player
import TestSupport
import Testing

/// Which ReplayGain value a queued song is played with, per mode.
@Suite struct ReplayGainModeTests {
    /// Issue 15: `auto` was documented as MPD's (track gain in random order) and played album gain always. Failed
    /// on the old code: with random on, `auto` gave the album's −3 dB instead of the track's −6 dB.
    @Test func autoIsTrackGainInRandomOrderAndAlbumGainInListOrder() async throws {
        let (player, engine) = playerOverMemory()
        defer { engine.shutdown() }
        let tagged = ReplayGainInfo(trackGain: -6, trackPeak: 0.1, albumGain: -3, albumPeak: 0.1)
        let untaggedAlbum = ReplayGainInfo(trackGain: -6, trackPeak: 0.1)
        _ = try await player.insert(uris: ["/a.flac", "/b.flac"], replayGain: [tagged, untaggedAlbum], at: nil)
        let track = ReplayGainMath.linearGain(gainDB: -6, peak: 0.1)
        let album = ReplayGainMath.linearGain(gainDB: -3, peak: 0.1)
        func gains() async -> [Double] {
            await player.queue.entries.asyncMap { await player.item($0).replayGain }
        }

        try await player.perform(.setReplayGain(.track))
        #expect(await gains() == [track, track])
        try await player.perform(.setReplayGain(.album))
        #expect(await gains() == [album, track], "album gain, the track's where the song has none")
        try await player.perform(.setReplayGain(.off))
        #expect(await gains() == [1, 1])
        try await player.perform(.setReplayGain(.auto))
        #expect(await gains() == [album, track], "list order: album gain")
        await player.setShuffled(true)
        #expect(await gains() == [track, track], "random order: track gain")
        await player.setShuffled(false)
        #expect(await gains() == [album, track])
    }
}

private extension Array {
    func asyncMap<T>(_ transform: (Element) async -> T) async -> [T] {
        var result: [T] = []
        for element in self { result.append(await transform(element)) }
        return result
    }
}
