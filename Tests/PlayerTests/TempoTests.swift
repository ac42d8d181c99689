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

    /// The loop with stretching on must be exactly as seamless as stretching continuous audio: the looped capture
    /// equals the stretched capture of a file that holds the looped source stream (proven bit-exact in LoopTests).
    @Test func loopWithStretchingIsAsSeamlessAsContinuousAudio() async throws {
        var harness = try CaptureHarness()
        harness.config.loopCrossfadeMilliseconds = 5
        let signal = TestSignal.sweep(frames: 60_000, channels: 2, bits: 16, seed: 11)
        let path = harness.directory.file("loop.flac")
        try FLACFixture.write(path: path, samples: signal, channels: 2, bitsPerSample: 16, sampleRate: 44_100)
        let (a, b, passes) = (3_000, 20_123, 3)
        let (looped, _) = try await harness.play([path], capture: "looped.raw") { player, ids in
            try await player.perform(.setTempo(percent: 80))
            try await player.setLoop(entry: ids[0], LoopRegion(start: Int64(a), end: Int64(b), repeatCount: passes))
        }
        let stream = LoopTests.expected(signal, channels: 2, a: a, b: b, fade: 220, passes: passes)
        let flat = harness.directory.file("flat.flac")
        try FLACFixture.write(path: flat, samples: stream, channels: 2, bitsPerSample: 16, sampleRate: 44_100)
        let (continuous, _) = try await harness.play([flat], capture: "continuous.raw") { player, _ in
            try await player.perform(.setTempo(percent: 80))
        }
        let got = int16Samples(looped), want = int16Samples(continuous)
        #expect(abs(got.count - stream.count * 10 / 8) < stream.count / 100)
        #expect(firstDifference(got, want) == nil, "\(got.count) vs \(want.count) samples")
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
            await player.setSpeedTrainer(startPercent: 80, stepPercent: 10, everyPasses: 2, ceilingPercent: 100)
            try await player.setLoop(entry: ids[0], LoopRegion(start: Int64(a), end: Int64(b), repeatCount: 6))
        }
        let pass = b - a
        let expected = b / 0.8 + pass / 0.8 + 2 * pass / 0.9 + 3 * pass + (60_000 - b)
        let got = Double(bytes.count / 4)
        #expect(abs(got - expected) / expected < 0.01, "\(Int(got)) frames, the schedule says \(Int(expected))")
        #expect(await player.status().tempoPercent == 100)
    }
}
