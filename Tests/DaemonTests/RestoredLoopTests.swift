import AudioOutput
import Engine
import FermataCore
import Foundation
import Player
import Testing
import TestSupport

/// A loop restored on a stopped player (a restart after a stop, or with `resume = off`): its ends are frames of the
/// entry's source, and the status must carry that source's rate, or `loop_status` prints frames as seconds. The
/// power-cut campaign (seed 4, cuts 26 and 80) read back a loop of 12.54–21.67 s as 553190–955823 "seconds".
@Suite(.serialized) struct RestoredLoopTests {
    @Test func aStoppedRestoreReportsItsLoopAtTheEntrysRate() async throws {
        let music = try TemporaryDirectory(prefix: "fermata-restored-loop")
        let path = music.file("piece.flac")
        try await NullSinkPlayer.writeSweep(path, seconds: 30, rate: 48_000, seed: 3)
        let rig = NullSinkPlayer()
        defer { rig.stop() }
        let player = rig.player
        var saved = PlayerSnapshot()
        saved.transport = .stopped
        saved.currentEntry = 4
        saved.nextEntryID = 5
        saved.sampleRate = 0  // what a stopped player saves: no position, no rate
        saved.loop = EntryLoop(entry: 4, region: LoopRegion(start: 48_000 * 12, end: 48_000 * 21))
        await player.restore(snapshot: saved, entries: [QueueEntry(id: 4, uri: path)], policy: .playing)
        let status = await player.status()
        #expect(status.state == .stopped)
        #expect(status.entryID == 4)
        #expect(status.loop.map { $0.start == Int64(48_000 * 12) } == true)
        #expect(status.sourceSampleRate == 48_000, "the loop's ends need the entry's rate to be seconds")
    }
}
