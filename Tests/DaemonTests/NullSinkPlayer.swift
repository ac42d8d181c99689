import AudioOutput
import Engine
import Foundation
import Player
import TestSupport

/// A real `Player` over ALSA's paced `null` PCM (nothing heard, time passes as it would), its event loop running,
/// with no real-time priority; `stop()` ends both. For tests of what the player does over time.
struct NullSinkPlayer {
    let player: Player
    let engine: PlaybackEngine
    private let events: Task<Void, Never>

    init() {
        var config = EngineConfig()
        config.realtimePriority = nil
        engine = PlaybackEngine(sink: OutputSpec.null.makeSink(), config: config)
        let player = Player(engine: engine)
        self.player = player
        events = Task { await player.run() }
    }

    func stop() {
        engine.shutdown()
        events.cancel()
    }

    /// A stereo 16-bit sweep of `seconds` at `rate` as a FLAC file at `path` (written off the cooperative pool).
    static func writeSweep(_ path: String, seconds: Int, rate: Int = 44_100, seed: UInt64) async throws {
        try await onThread {
            try FLACFixture.write(path: path, samples: TestSignal.sweep(frames: rate * seconds, channels: 2, bits: 16,
                                                                        seed: seed),
                                  channels: 2, bitsPerSample: 16, sampleRate: rate)
        }
    }
}
