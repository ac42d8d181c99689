import AudioCore
@testable import Decoders
import Foundation
import TestSupport
import Testing

@Suite("Ogg Vorbis decoder")
struct VorbisDecoderTests {
    /// Encodes a 16-bit sweep of `frames` frames with oggenc; returns the .ogg path and the source as floats.
    static func fixture(
        frames: Int, channels: Int = 2, rate: Int = 44100, serial: Int32 = 1, name: String? = nil,
        tags: [String: String] = [:], in dir: TemporaryDirectory
    ) throws -> (path: String, source: [Float]) {
        let samples = TestSignal.sweep(frames: frames, channels: channels, bits: 16, sampleRate: rate,
                                       seed: UInt64(frames))
        let base = name ?? "v\(frames)-\(channels)-\(rate)"
        let wav = dir.file(base + ".wav")
        try WAVFixture.write(path: wav, samples: samples, channels: channels, sampleRate: rate, kind: .pcm16)
        let ogg = dir.file(base + ".ogg")
        try VorbisFixture.write(path: ogg, wavPath: wav, quality: 3, tags: tags, serial: serial)
        return (ogg, samples.map { Float($0) / 32768 })
    }

    /// Normalised correlation of two equally long signals (1 = identical shape).
    static func correlation(_ a: [Float], _ b: [Float]) -> Double {
        var ab = 0.0, aa = 0.0, bb = 0.0
        for (x, y) in zip(a, b) {
            ab += Double(x) * Double(y)
            aa += Double(x) * Double(x)
            bb += Double(y) * Double(y)
        }
        return ab / max((aa * bb).squareRoot(), .leastNonzeroMagnitude)
    }

    @Test("exact length and faithful audio", arguments: [44_100, 44_101, 12_345])
    func exactLength(frames: Int) throws {
        let dir = try TemporaryDirectory()
        let (path, source) = try Self.fixture(frames: frames, in: dir)
        let decoder = try DecoderRegistry.open(path: path)
        #expect(decoder is VorbisDecoder)
        #expect(decoder.format == AudioFormat(sampleRate: 44100, channels: 2, encoding: .f32))
        #expect(decoder.totalFrames == Int64(frames))
        let decoded = try Decode.floats(decoder, chunkFrames: 1_000)
        #expect(decoded.count == frames * 2)
        #expect(Self.correlation(decoded, source) > 0.95)
    }

    @Test("a chained file of two same-format links plays both")
    func chained() throws {
        let dir = try TemporaryDirectory()
        let first = try Self.fixture(frames: 44_100, serial: 11, in: dir)
        let second = try Self.fixture(frames: 12_345, serial: 22, in: dir)
        let chained = dir.file("chained.ogg")
        try VorbisFixture.concatenate([first.path, second.path], into: chained)
        let decoder = try VorbisDecoder(path: chained)
        #expect(decoder.totalFrames == 56_445)
        let decoded = try Decode.floats(decoder, chunkFrames: 4_000)
        #expect(decoded.count == 56_445 * 2)
        #expect(Self.correlation(Array(decoded.suffix(12_345 * 2)), second.source) > 0.95)
    }

    @Test("a chained file whose second link changes format stops after the first")
    func chainedFormatChange() throws {
        let dir = try TemporaryDirectory()
        let first = try Self.fixture(frames: 20_000, serial: 5, in: dir)
        let second = try Self.fixture(frames: 9_000, channels: 1, rate: 22050, serial: 6, in: dir)
        let chained = dir.file("mixed.ogg")
        try VorbisFixture.concatenate([first.path, second.path], into: chained)
        let decoder = try VorbisDecoder(path: chained)
        #expect(decoder.totalFrames == 20_000)
        #expect(try Decode.count(decoder, chunkFrames: 3_000) == 20_000)
        // Seeking beyond the compatible run clamps to its end.
        try decoder.seek(toFrame: 25_000)
        #expect(try Decode.count(decoder) == 0)
        try decoder.seek(toFrame: 19_000)
        #expect(try Decode.count(decoder) == 1_000)
    }

    @Test("seeks sample-accurately")
    func seeks() throws {
        let dir = try TemporaryDirectory()
        let (path, _) = try Self.fixture(frames: 50_000, in: dir)
        let reference = try Decode.floats(VorbisDecoder(path: path))
        let decoder = try VorbisDecoder(path: path)
        for target in [31_234, 0, 49_999, 1_024, 7] {
            try decoder.seek(toFrame: Int64(target))
            let got = try Decode.floats(decoder, limit: 2_000)
            let want = Array(reference[(target * 2)..<(min(50_000, target + 2_000) * 2)])
            #expect(got.count == want.count, "after seeking to \(target)")
            let worst = zip(got, want).map { abs($0 - $1) }.max() ?? 0
            #expect(worst < 1e-4, "after seeking to \(target): max difference \(worst)")
        }
    }

    @Test("3 channels come out in WAV order (L R C)")
    func channelOrder() throws {
        let dir = try TemporaryDirectory()
        let frames = 22_050
        var samples = [Int32](repeating: 0, count: frames * 3)
        let levels: [Double] = [0.8, 0.05, 0.3]
        for frame in 0..<frames {
            for channel in 0..<3 {
                let phase = 2 * Double.pi * 440 * Double(frame) / 44100
                samples[frame * 3 + channel] = Int32(levels[channel] * 32767 * sin(phase))
            }
        }
        let wav = dir.file("three.wav")
        try WAVFixture.write(path: wav, samples: samples, channels: 3, sampleRate: 44100, kind: .pcm16)
        let ogg = dir.file("three.ogg")
        try VorbisFixture.write(path: ogg, wavPath: wav)
        let decoded = try Decode.floats(VorbisDecoder(path: ogg))
        let rms = (0..<3).map { channel in
            (stride(from: channel, to: decoded.count, by: 3).map { Double(decoded[$0] * decoded[$0]) }
                .reduce(0, +) / Double(frames)).squareRoot()
        }
        for channel in 0..<3 {
            #expect(abs(rms[channel] - levels[channel] / 2.squareRoot()) < 0.02, "channel \(channel): \(rms)")
        }
    }

    @Test("Ogg that is neither Vorbis nor Opus is unsupported")
    func notVorbis() throws {
        let dir = try TemporaryDirectory()
        var page: [UInt8] = Array("OggS".utf8) + [0, 2] + [UInt8](repeating: 0, count: 20) + [1, 19]
        page += Array("Speex   ".utf8) + [1, 2, 0x38, 1, 0x80, 0xBB, 0, 0, 0, 0, 0]
        let path = dir.file("speex.ogg")
        try Data(page).write(to: URL(fileURLWithPath: path))
        #expect(Decode.failure(of: path) == .unsupported(path: path, reason: "the Ogg stream is neither Vorbis nor Opus"))
        #expect { try VorbisDecoder(path: path) } throws: { ($0 as? DecoderError)?.kind == "unsupported" }
    }
}
