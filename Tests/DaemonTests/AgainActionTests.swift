import AudioOutput
import Engine
import FermataCore
import Foundation
import Player
import Testing
import TestSupport

/// "Again!" (`loop-last-N` on a pedal or button, `loop_last`, `fermata loop again`): the last N seconds heard loop,
/// ending where playback is; at another tempo, N seconds of listening are N × tempo of the track; pressed again,
/// straight playback. On a real `Player` over ALSA's paced `null` PCM.
@Suite(.serialized) struct AgainActionTests {
    @Test(arguments: [100, 80]) func theLastSecondsHeardLoopAndASecondPressClearsIt(tempo: Int) async throws {
        let music = try TemporaryDirectory(prefix: "fermata-again")
        let path = music.file("piece.flac")
        try await NullSinkPlayer.writeSweep(path, seconds: 20, seed: 5)
        let rig = NullSinkPlayer()
        defer { rig.stop() }
        let player = rig.player
        let ids = try await player.add(paths: [path])
        try await player.perform(.setTempo(percent: tempo))
        // The track repeats: a loaded machine once starved this test past the track's end, and "Again!" then found
        // nothing playing.
        try await player.perform(.setRepeat(.track))
        try await player.perform(.playEntry(ids[0]))
        await expectThrows { try await player.perform(.loopLast(seconds: 0.1)) }
        // Past 2.5 s heard, so 2 s of listening fit before it.
        let deadline = ContinuousClock.now + .seconds(120)
        while await player.status().elapsed < 2.5, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let readAt = ContinuousClock.now
        let before = await player.status().elapsedFrames
        try await player.perform(.loopLast(seconds: 2))
        let took = ContinuousClock.now - readAt
        let after = await player.status()
        let loop = try #require(after.loop, "no loop after loop-last")
        #expect(loop.end - loop.start == Int64(2 * 44_100 * tempo / 100), "\(loop)")
        // It ends where playback was when it was pressed: not before the position read just before, and no further
        // than the music can have moved while the read and the press took (on a loaded machine that is seconds), at
        // the tempo, plus a quarter second for the position's granularity.
        let seconds = Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18
        let reach = Int64((seconds + 0.25) * 44_100 * Double(tempo) / 100)
        #expect(loop.end >= before && loop.end - before <= reach,
                "end \(loop.end), heard before \(before), \(took) between the read and the press")
        #expect(loop.repeatCount == nil)
        try await player.perform(.loopLast(seconds: 2))
        #expect(await player.status().loop == nil, "a second press returns to straight playback")
    }

    func expectThrows(_ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("expected a refusal")
        } catch {}
    }
}
