import AudioCore
import Engine
import FermataCore
import Foundation
import Player
import TestSupport
import Testing

/// Count-in clicks on captured PCM: each click starts exactly on its beat frame, silence between clicks, and the
/// music follows sample-exact in the next frame.
@Suite struct CountInTests {
    /// Checks `beats` clicks `interval` frames apart at the start of `left` (one channel) and returns the onset
    /// amplitudes.
    static func checkClicks(_ left: ArraySlice<Int32>, beats: Int, interval: Int) -> [Int32] {
        var onsets: [Int32] = []
        let base = left.startIndex
        for beat in 0..<beats {
            let start = base + beat * interval
            onsets.append(left[start])
            #expect(left[start] != 0, "beat \(beat) sounds on frame \(beat * interval)")
            // The click is over well before the next beat: the last third of the interval is silent.
            let quiet = left[(start + interval * 2 / 3)..<(start + interval)]
            #expect(quiet.allSatisfy { $0 == 0 }, "silence before beat \(beat + 1)")
        }
        return onsets
    }

    static func left(_ samples: [Int32]) -> [Int32] { stride(from: 0, to: samples.count, by: 2).map { samples[$0] } }

    @Test func clicksOnTheBeatThenTheMusicSampleExact() async throws {
        let harness = try CaptureHarness()
        let signal = TestSignal.sweep(frames: 30_000, channels: 2, bits: 16, seed: 81)
        let path = harness.directory.file("m.flac")
        try FLACFixture.write(path: path, samples: signal, channels: 2, bitsPerSample: 16, sampleRate: 44_100)
        let (bytes, _) = try await harness.play([path]) { player, _ in
            try await player.perform(.countIn(CountInPlan(beats: 4, bpm: 120)))
        }
        let captured = int16Samples(bytes)
        let interval = 22_050  // 120 BPM at 44.1 kHz
        try #require(captured.count == (4 * interval) * 2 + signal.count)
        let onsets = Self.checkClicks(Self.left(captured)[...], beats: 4, interval: interval)
        #expect(abs(onsets[0]) > abs(onsets[1]) && onsets[1] == onsets[2], "beat one accented: \(onsets)")
        #expect(firstDifference(Array(captured[(4 * interval * 2)...]), signal) == nil)
    }

    /// A damaged or hostile BPM tag (`0`, `nan`, `inf`, `1e308`) used to divide by zero and trap the decoder thread;
    /// it is ignored like a missing tag and the fallback tempo counts in.
    @Test(arguments: ["0", "nan", "inf", "-120", "1e308"])
    func anUnusableBPMTagFallsBack(tag: String) async throws {
        let harness = try CaptureHarness()
        let signal = TestSignal.sweep(frames: 10_000, channels: 2, bits: 16, seed: 83)
        let path = harness.directory.file("m.flac")
        try FLACFixture.write(path: path, samples: signal, channels: 2, bitsPerSample: 16, sampleRate: 44_100,
                              tags: ["BPM": tag])
        let (bytes, _) = try await harness.play([path]) { player, _ in
            try await player.perform(.countIn(CountInPlan(beats: 2, fallbackBPM: 120)))
        }
        let captured = int16Samples(bytes)
        let interval = 22_050  // the 120 BPM fallback
        try #require(captured.count == 2 * interval * 2 + signal.count)
        _ = Self.checkClicks(Self.left(captured)[...], beats: 2, interval: interval)
        #expect(firstDifference(Array(captured[(2 * interval * 2)...]), signal) == nil)
    }

    @Test func theFilesBPMTagSetsTheTempo() async throws {
        let harness = try CaptureHarness()
        let signal = TestSignal.sweep(frames: 10_000, channels: 2, bits: 16, seed: 82)
        let path = harness.directory.file("m.flac")
        try FLACFixture.write(path: path, samples: signal, channels: 2, bitsPerSample: 16, sampleRate: 44_100,
                              tags: ["BPM": "150"])
        let (bytes, _) = try await harness.play([path]) { player, _ in
            try await player.perform(.countIn(CountInPlan(beats: 2, fallbackBPM: 60)))
        }
        let captured = int16Samples(bytes)
        let interval = 17_640  // 150 BPM, not the 60 BPM fallback
        try #require(captured.count == 2 * interval * 2 + signal.count)
        _ = Self.checkClicks(Self.left(captured)[...], beats: 2, interval: interval)
        #expect(firstDifference(Array(captured[(2 * interval * 2)...]), signal) == nil)
    }

    /// Before the start and before each of two loop passes: clicks, then exactly the pass, then the rest of the track.
    @Test func beforeEachLoopPass() async throws {
        let harness = try CaptureHarness()
        let signal = TestSignal.sweep(frames: 40_000, channels: 2, bits: 16, seed: 83)
        let path = harness.directory.file("m.flac")
        try FLACFixture.write(path: path, samples: signal, channels: 2, bitsPerSample: 16, sampleRate: 44_100)
        let (a, b) = (5_000, 17_777)
        let (bytes, _) = try await harness.play([path]) { player, ids in
            try await player.perform(.countIn(CountInPlan(beats: 2, bpm: 240, beforeEachPass: true)))
            try await player.setLoop(entry: ids[0], LoopRegion(start: Int64(a), end: Int64(b), repeatCount: 2))
        }
        let captured = int16Samples(bytes)
        let interval = 11_025, clicks = 2 * interval * 2
        let pieces = [Array(signal[0..<(b * 2)]), Array(signal[(a * 2)..<(b * 2)]), Array(signal[(a * 2)..<(b * 2)])]
        try #require(captured.count == 3 * clicks + pieces.map(\.count).reduce(0, +) + (signal.count - b * 2))
        var at = 0
        for (index, piece) in pieces.enumerated() {
            _ = Self.checkClicks(Self.left(Array(captured[at..<(at + clicks)]))[...], beats: 2, interval: interval)
            at += clicks
            #expect(firstDifference(Array(captured[at..<(at + piece.count)]), piece) == nil, "piece \(index)")
            at += piece.count
        }
        #expect(firstDifference(Array(captured[at...]), Array(signal[(b * 2)...])) == nil, "the rest of the track")
    }

    @Test func nonsenseIsRefused() async throws {
        let harness = try CaptureHarness()
        let path = harness.directory.file("m.flac")
        try FLACFixture.write(path: path, samples: TestSignal.sweep(frames: 1_000, channels: 2, bits: 16, seed: 84),
                              channels: 2, bitsPerSample: 16, sampleRate: 44_100)
        _ = try await harness.play([path]) { player, _ in
            await #expect(throws: Player.ActionError.self) {
                try await player.perform(.countIn(CountInPlan(beats: 4, bpm: 1_000)))
            }
        }
    }
}
