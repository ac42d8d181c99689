import AudioCore
import Engine
import Foundation
import Player
import TestSupport
import Testing

/// What happens when the sample format changes between tracks, asserted on the capture.
@Suite struct FormatChangeTests {
    /// Fixed (default): one open device at the first track's format; 48 kHz is resampled, mono is spread to stereo.
    @Test func fixedPolicyKeepsOneStreamAndConverts() async throws {
        let harness = try CaptureHarness()
        let first = TestSignal.sweep(frames: 44_100, channels: 2, bits: 16, seed: 1)
        let second = TestSignal.sweep(frames: 48_000, channels: 2, bits: 16, sampleRate: 48_000, seed: 2)
        let third = TestSignal.sweep(frames: 22_050, channels: 1, bits: 16, seed: 3)
        let paths = [harness.directory.file("a.flac"), harness.directory.file("b.flac"), harness.directory.file("c.flac")]
        try FLACFixture.write(path: paths[0], samples: first, channels: 2, bitsPerSample: 16, sampleRate: 44_100)
        try FLACFixture.write(path: paths[1], samples: second, channels: 2, bitsPerSample: 16, sampleRate: 48_000)
        try FLACFixture.write(path: paths[2], samples: third, channels: 1, bitsPerSample: 16, sampleRate: 44_100)
        let (bytes, _) = try await harness.play(paths)
        let captured = int16Samples(bytes)
        let frames = captured.count / 2
        // One second at 48 kHz becomes one second at 44.1 kHz; soxr's flush may add or drop a handful of frames.
        #expect(abs(frames - (44_100 + 44_100 + 22_050)) < 64)
        #expect(Array(captured.prefix(first.count)) == first, "the first track is untouched")
        let tail = Array(captured.suffix(third.count * 2))
        let spread = third.flatMap { [$0, $0] }
        #expect(firstDifference(tail, spread) == nil, "mono is copied to both channels exactly")
        let middle = Array(captured[first.count..<(captured.count - spread.count)])
        let energy = middle.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, middle.count))
        #expect(energy > 1_000_000, "the resampled track is audible, not silence")
    }

    /// Follow: the device is reopened at each track's format; every track arrives untouched in its own format.
    @Test func followPolicyReopensAtEachFormat() async throws {
        var harness = try CaptureHarness()
        harness.config.formatPolicy = .follow(settleMilliseconds: 0)
        let first = TestSignal.sweep(frames: 30_000, channels: 2, bits: 16, seed: 4)
        let second = TestSignal.sweep(frames: 30_000, channels: 2, bits: 24, sampleRate: 48_000, seed: 5)
        let paths = [harness.directory.file("a.flac"), harness.directory.file("b.flac")]
        try FLACFixture.write(path: paths[0], samples: first, channels: 2, bitsPerSample: 16, sampleRate: 44_100)
        try FLACFixture.write(path: paths[1], samples: second, channels: 2, bitsPerSample: 24, sampleRate: 48_000)
        // The file plugin expands %r (rate) and %b (bits) in its file name: one capture per opened format.
        _ = try await harness.play(paths, capture: "cap-%r-%b.raw")
        let a = int16Samples([UInt8](FileManager.default.contents(atPath: harness.directory.file("cap-44100-16.raw")) ?? Data()))
        let b = int32Samples([UInt8](FileManager.default.contents(atPath: harness.directory.file("cap-48000-32.raw")) ?? Data()))
        #expect(firstDifference(a, first) == nil)
        #expect(firstDifference(b.map { $0 >> 8 }, second) == nil)
    }
}
