import AudioCore
import Engine
import FermataCore
import Foundation
import Player
import TestSupport
import Testing

/// ReplayGain from the tags, with the tagged peak limiting the gain so nothing clips.
@Suite struct ReplayGainTests {
    func capture(tags: [String: String], mode: ReplayGainMode) async throws -> (source: [Int32], captured: [Int32]) {
        let harness = try CaptureHarness()
        let signal = TestSignal.sweep(frames: 20_000, channels: 2, bits: 16, seed: 51)
        let path = harness.directory.file("rg.flac")
        try FLACFixture.write(path: path, samples: signal, channels: 2, bitsPerSample: 16, sampleRate: 44_100, tags: tags)
        let (bytes, _) = try await harness.play([path]) { player, _ in try await player.perform(.setReplayGain(mode)) }
        return (signal, int16Samples(bytes))
    }

    static func scaled(_ samples: [Int32], by gain: Double) -> [Int32] {
        // The converter works in Float32 between the gain and the 16-bit rounding.
        samples.map { Int32(max(-32768, min(32767, (Double(Float(Double($0) / 32768 * gain)) * 32768).rounded()))) }
    }

    @Test func trackGainIsApplied() async throws {
        let tags = ["REPLAYGAIN_TRACK_GAIN": "-6.00 dB", "REPLAYGAIN_TRACK_PEAK": "0.5"]
        let (source, captured) = try await capture(tags: tags, mode: .track)
        #expect(firstDifference(captured, Self.scaled(source, by: pow(10, -6.0 / 20))) == nil)
    }

    @Test func positiveGainIsLimitedByThePeak() async throws {
        let tags = ["REPLAYGAIN_TRACK_GAIN": "+12.00 dB", "REPLAYGAIN_TRACK_PEAK": "0.800000"]
        let (source, captured) = try await capture(tags: tags, mode: .track)
        #expect(firstDifference(captured, Self.scaled(source, by: 1 / 0.8)) == nil)
    }

    /// Tags are untrusted input: a gain or peak that is not a usable number (`nan`, `inf`, `1e308 dB`) is ignored, so
    /// the track plays untouched instead of trapping the decoder thread or going silent.
    @Test(arguments: [["REPLAYGAIN_TRACK_GAIN": "nan", "REPLAYGAIN_TRACK_PEAK": "0.5"],
                      ["REPLAYGAIN_TRACK_GAIN": "1e308 dB"],
                      ["REPLAYGAIN_TRACK_GAIN": "+6 dB", "REPLAYGAIN_TRACK_PEAK": "nan"],
                      ["REPLAYGAIN_TRACK_GAIN": "-inf dB"]])
    func anUnusableTagPlaysAtUnity(tags: [String: String]) async throws {
        let (source, captured) = try await capture(tags: tags, mode: .track)
        let expected = tags["REPLAYGAIN_TRACK_GAIN"] == "+6 dB" ? Self.scaled(source, by: pow(10, 6.0 / 20)) : source
        #expect(firstDifference(captured, expected) == nil)
    }

    @Test func offLeavesTheSamplesUntouched() async throws {
        let tags = ["REPLAYGAIN_TRACK_GAIN": "-6.00 dB", "REPLAYGAIN_TRACK_PEAK": "0.5"]
        let (source, captured) = try await capture(tags: tags, mode: .off)
        #expect(captured == source)
    }
}
