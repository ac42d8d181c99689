import AudioCore
import Engine
import Foundation
import Player
import TestSupport
import Testing

/// Gapless playback through real ALSA (the `file` plugin): the capture equals the source sample for sample.
@Suite struct GaplessTests {
    /// Frame offsets that are not multiples of the 4096-frame FLAC block.
    static let cuts = [40_001, 95_777, 131_071]

    @Test func sixteenBitFLACIsBitExact() async throws {
        let harness = try CaptureHarness()
        let signal = TestSignal.sweep(frames: 180_000, channels: 2, bits: 16)
        let files = try writeFLACPieces(signal, cuts: Self.cuts, channels: 2, bits: 16, rate: 44_100,
                                        in: harness.directory, prefix: "s16")
        let (bytes, _) = try await harness.play(files)
        let captured = int16Samples(bytes)
        #expect(captured.count == signal.count)
        #expect(firstDifference(captured, signal) == nil)
    }

    @Test func twentyFourBitFLACIsBitExact() async throws {
        let harness = try CaptureHarness()
        let signal = TestSignal.sweep(frames: 150_000, channels: 2, bits: 24, sampleRate: 96_000)
        let files = try writeFLACPieces(signal, cuts: [33_333, 77_777], channels: 2, bits: 24, rate: 96_000,
                                        in: harness.directory, prefix: "s24")
        let (bytes, _) = try await harness.play(files)
        let captured = int32Samples(bytes)
        #expect(captured.count == signal.count)
        #expect(captured.allSatisfy { $0 & 0xFF == 0 }, "24-bit audio travels left-justified in S32")
        #expect(firstDifference(captured.map { $0 >> 8 }, signal) == nil)
    }

    @Test func wavIsBitExact() async throws {
        let harness = try CaptureHarness()
        let signal = TestSignal.sweep(frames: 100_000, channels: 2, bits: 16, seed: 7)
        let bounds = [0, 12_345, 60_001, 100_000]
        var files: [String] = []
        for index in 0..<3 {
            let path = harness.directory.file("w\(index).wav")
            try WAVFixture.write(path: path, samples: Array(signal[(bounds[index] * 2)..<(bounds[index + 1] * 2)]),
                                 channels: 2, sampleRate: 44_100, kind: .pcm16, extensible: index == 1)
            files.append(path)
        }
        let (bytes, _) = try await harness.play(files)
        #expect(firstDifference(int16Samples(bytes), signal) == nil)
    }

    @Test func vorbisFrameCountsAreExact() async throws {
        let harness = try CaptureHarness()
        let lengths = [44_100, 44_101, 12_345]
        var files: [String] = []
        for (index, frames) in lengths.enumerated() {
            let wav = harness.directory.file("v\(index).wav")
            try WAVFixture.write(path: wav, samples: TestSignal.sweep(frames: frames, channels: 2, bits: 16, seed: 3),
                                 channels: 2, sampleRate: 44_100, kind: .pcm16)
            let ogg = harness.directory.file("v\(index).ogg")
            try VorbisFixture.write(path: ogg, wavPath: wav)
            files.append(ogg)
        }
        let (bytes, _) = try await harness.play(files)
        // Vorbis decodes to float: the device runs FLOAT_LE stereo, 8 bytes a frame.
        #expect(bytes.count / 8 == lengths.reduce(0, +))
        #expect(bytes.count % 8 == 0)
    }
}
