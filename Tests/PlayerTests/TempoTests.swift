import AudioCore
import Engine
import FermataCore
import Foundation
import Player
import TestSupport
import Testing

/// Slow-down and speed-up without pitch change (SoundTouch in the decoder's float stage), on captured PCM.
@Suite struct TempoTests {
    /// A 440 Hz tone, stereo 16-bit at 44.1 kHz.
    static func tone(frames: Int) -> [Int32] {
        (0..<frames).flatMap { i -> [Int32] in
            let v = Int32((sin(2 * Double.pi * 440 * Double(i) / 44_100) * 12_000).rounded())
            return [v, v]
        }
    }

    /// Sign changes per second on the left channel, between 20 % and 80 % of the capture (away from the edges).
    static func crossingsPerSecond(_ samples: [Int32]) -> Double {
        let left = stride(from: 0, to: samples.count, by: 2).map { samples[$0] }
        let from = left.count / 5, to = left.count * 4 / 5
        var crossings = 0
        for i in (from + 1)..<to where (left[i - 1] < 0) != (left[i] < 0) { crossings += 1 }
        return Double(crossings) / (Double(to - from) / 44_100)
    }

    @Test(arguments: [80, 120])
    func lengthFollowsTheTempoAndThePitchStays(percent: Int) async throws {
        let harness = try CaptureHarness()
        let frames = 88_200
        let path = harness.directory.file("tone.flac")
        try FLACFixture.write(path: path, samples: Self.tone(frames: frames), channels: 2, bitsPerSample: 16,
                              sampleRate: 44_100)
        let (bytes, player) = try await harness.play([path]) { player, _ in
            try await player.perform(.setTempo(percent: percent))
        }
        let captured = int16Samples(bytes)
        let expected = Double(frames) * 100 / Double(percent)
        let got = Double(captured.count / 2)
        #expect(abs(got - expected) / expected < 0.01, "\(Int(got)) frames at \(percent) %, expected \(Int(expected))")
        let rate = Self.crossingsPerSecond(captured)
        #expect(abs(rate - 880) / 880 < 0.02, "a 440 Hz tone still crosses zero 880 times a second: \(rate)")
        #expect(await player.status().tempoPercent == percent)
    }

    @Test func backAtOneHundredPercentIsBitExact() async throws {
        let signal = TestSignal.sweep(frames: 50_000, channels: 2, bits: 16, seed: 71)
        let (bytes, _) = try await CaptureHarness().play(samples: signal) { player, _ in
            try await player.perform(.setTempo(percent: 70))
            try await player.perform(.setTempo(percent: 100))
        }
        #expect(firstDifference(int16Samples(bytes), signal) == nil)
    }

    @Test func outOfRangeTempoIsRefusedAndButtonsClamp() async throws {
        _ = try await CaptureHarness().play(samples: Self.tone(frames: 4_410)) { player, _ in
            await #expect(throws: Player.ActionError.self) { try await player.perform(.setTempo(percent: 200)) }
            for _ in 0..<12 { try await player.perform(.changeTempo(by: -5)) }
            #expect(await player.status().tempoPercent == 50)
            try await player.perform(.setTempo(percent: 83))
            #expect(await player.status().tempoPercent == 85, "rounded to the 5 % steps")
        }
    }

    /// A loop at 80 %: every pass is exactly its source frames / 0.8 long (the stretcher ends each pass and starts
    /// the next afresh, `FormatConverter.finishPass`), and the seam is as smooth as continuous stretching: on a 220.5 Hz
    /// tone looped over whole periods, no step between samples within 3 ms of a seam is larger than 1.5 × the largest
    /// elsewhere, and no 1 ms around a seam falls below half the tone's level (no click, no drop-out).
    @Test func loopWithStretchingHasExactPassesAndSmoothSeams() async throws {
        var harness = try CaptureHarness()
        harness.config.loopCrossfadeMilliseconds = 5
        let tone = (0..<60_000).flatMap { i -> [Int32] in
            let v = Int32((sin(2 * Double.pi * 220.5 * Double(i) / 44_100) * 12_000).rounded())
            return [v, v]
        }
        let (a, b, jumps) = (3_000, 23_000, 3)  // whole periods of 200 frames
        let (looped, _) = try await harness.play(samples: tone) { player, ids in
            try await player.perform(.setTempo(percent: 80))
            try await player.setLoop(entry: ids[0], LoopRegion(start: Int64(a), end: Int64(b), repeatCount: jumps))
        }
        let got = int16Samples(looped).enumerated().filter { $0.offset % 2 == 0 }.map { Double($0.element) }
        // The first piece to B, three passes of 25,000 frames, then the rest of the track, each / 0.8.
        let seams = (0..<jumps).map { b * 10 / 8 + $0 * (b - a) * 10 / 8 }
        let total = seams[jumps - 1] + (b - a) * 10 / 8 + (60_000 - b) * 10 / 8
        #expect(abs(got.count - total) <= 2, "\(got.count) frames, the passes say \(total)")
        let steps = zip(got.dropFirst(), got).map { abs($0 - $1) }
        let near = { (i: Int) in seams.contains { abs($0 - i) <= 132 } }
        let elsewhere = steps.indices.filter { $0 > 4_410 && $0 < steps.count - 4_410 && !near($0) }.map { steps[$0] }.max() ?? 0
        for seam in seams {
            let around = steps[(seam - 132)...(seam + 132)].max() ?? 0
            #expect(around <= elsewhere * 1.5, "a step of \(around) at the seam at \(seam), \(elsewhere) at most elsewhere: \(got[(seam - 140)...(seam + 140)].map { Int($0) })")
            for window in stride(from: seam - 441, to: seam + 441, by: 44) {
                let rms = (got[window..<(window + 44)].map { $0 * $0 }.reduce(0, +) / 44).squareRoot()
                #expect(rms > 12_000 / 2.squareRoot() / 2, "\(Int(rms)) RMS at \(window), the seam at \(seam)")
            }
        }
    }

    /// Start at 80 %, +10 % every 2 passes, ceiling 100 %: the capture is as long as that schedule says.
    @Test func speedTrainerRaisesTheTempoEveryNPasses() async throws {
        var harness = try CaptureHarness()
        harness.config.loopCrossfadeMilliseconds = 5
        let signal = TestSignal.sweep(frames: 60_000, channels: 2, bits: 16, seed: 12)
        let path = harness.directory.file("t.flac")
        try FLACFixture.write(path: path, samples: signal, channels: 2, bitsPerSample: 16, sampleRate: 44_100)
        let (a, b) = (3_000.0, 20_123.0)
        let (bytes, player) = try await harness.play([path]) { player, ids in
            try await player.setSpeedTrainer(startPercent: 80, stepPercent: 10, everyPasses: 2, ceilingPercent: 100)
            try await player.setLoop(entry: ids[0], LoopRegion(start: Int64(a), end: Int64(b), repeatCount: 6))
        }
        let pass = b - a
        let expected = b / 0.8 + pass / 0.8 + 2 * pass / 0.9 + 3 * pass + (60_000 - b)
        let got = Double(bytes.count / 4)
        #expect(abs(got - expected) / expected < 0.01, "\(Int(got)) frames, the schedule says \(Int(expected))")
        #expect(await player.status().tempoPercent == 100)
    }
}
