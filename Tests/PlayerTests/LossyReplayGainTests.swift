import AudioCore
import Engine
import FermataCore
import Foundation
import Player
import TestSupport
import Testing

/// ReplayGain from MP3's `TXXX` frames, MP4's iTunes items and Opus's R128 gains, measured on captured PCM: the level
/// with ReplayGain on, against the same file with it off, is the tagged gain (R128 brought to ReplayGain's −18 LUFS).
@Suite(.serialized) struct LossyReplayGainTests {
    /// The RMS of the capture with ReplayGain `mode` over the RMS with it off, in dB.
    func measuredGain(_ kind: LossyFixture.Kind, tag: (String) throws -> Void) async throws -> Double {
        let harness = try CaptureHarness()
        let wav = harness.directory.file("s.wav")
        try WAVFixture.write(path: wav, samples: TestSignal.sweep(frames: 44_100, channels: 2, bits: 16, seed: 61),
                             channels: 2, sampleRate: 44_100, kind: .pcm16)
        let path = harness.directory.file("rg.\(kind.fileExtension)")
        try LossyFixture.encode(kind, wav: wav, to: path)
        try tag(path)
        func rms(_ mode: ReplayGainMode, _ name: String) async throws -> Double {
            let (bytes, _) = try await harness.play([path], capture: name) { player, _ in
                try await player.perform(.setReplayGain(mode))
            }
            let samples = LossyFixture.floats(Data(bytes))
            return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, samples.count))).squareRoot()
        }
        let off = try await rms(.off, "off.raw"), on = try await rms(.track, "on.raw")
        return 20 * log10(on / off)
    }

    static func mutagen(_ script: String, _ path: String) throws {
        try LossyFixture.run("/usr/bin/python3", ["-c", script, path])
    }

    @Test func mp3TXXXGain() async throws {
        let gain = try await measuredGain(.mp3) { path in
            try Self.mutagen("""
                import sys; from mutagen.id3 import ID3, TXXX
                t = ID3(); t.add(TXXX(encoding=3, desc='REPLAYGAIN_TRACK_GAIN', text=['-6.00 dB']))
                t.add(TXXX(encoding=3, desc='REPLAYGAIN_TRACK_PEAK', text=['0.7'])); t.save(sys.argv[1])
                """, path)
        }
        #expect(abs(gain - -6) < 0.01, "measured \(gain) dB")
    }

    @Test func m4aITunesGain() async throws {
        let gain = try await measuredGain(.aac) { path in
            try Self.mutagen("""
                import sys, mutagen.mp4
                f = mutagen.mp4.MP4(sys.argv[1]); f['----:com.apple.iTunes:replaygain_track_gain'] = [b'-4.50 dB']; f.save()
                """, path)
        }
        #expect(abs(gain - -4.5) < 0.01, "measured \(gain) dB")
    }

    @Test func opusR128Gain() async throws {
        // −1536/256 = −6 dB towards −23 LUFS; ReplayGain's reference is 5 dB louder: −1 dB.
        let gain = try await measuredGain(.opus) { path in
            try Self.mutagen("""
                import sys, mutagen.oggopus
                f = mutagen.oggopus.OggOpus(sys.argv[1]); f['R128_TRACK_GAIN'] = ['-1536']; f.save()
                """, path)
        }
        #expect(abs(gain - -1) < 0.01, "measured \(gain) dB")
    }
}
