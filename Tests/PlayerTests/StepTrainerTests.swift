import AudioCore
import Engine
import FermataCore
import Foundation
import Player
import TestSupport
import Testing

/// The step trainer on captured PCM: every pass exactly its region's frames / its tempo long, the tempo changing only
/// at pass boundaries, the click over the track following it, the target reached after the planned passes.
@Suite struct StepTrainerTests {
    /// 70 % → 100 % in 10 % steps, 2 passes each.
    static let plan = SpeedTrainerPlan(startPercent: 70, stepPercent: 10, everyPasses: 2, ceilingPercent: 100)
    /// The tempo of each of 8 passes under `plan`.
    static let passTempos = [70, 70, 80, 80, 90, 90, 100, 100]

    /// Device frames a pass of `frames` source frames lasts at `percent` (same rate in and out).
    static func passFrames(_ frames: Int, at percent: Int) -> Int {
        Int((Double(frames) * 100 / Double(percent)).rounded())
    }

    /// A silent track with the click at 120 BPM (a beat every 22,050 frames, 4 to the bar) and a one-bar loop at its
    /// start, 8 passes: every sound is a click, beat one of each pass the accented one. The accented clicks are where
    /// each pass begins: 126,000 frames apart at 70 %, 110,250 at 80 %, 98,000 at 90 %, 88,200 at 100 % (±1 frame per
    /// boundary); within a pass the clicks are a beat / tempo apart, so a tempo changes only where a pass begins.
    @Test func passesHaveExactLengthsAndTheTempoStepsOnlyAtTheirBoundaries() async throws {
        let bar = 88_200
        let silence = [Int32](repeating: 0, count: (bar + 22_050 / 2) * 2)
        let (bytes, player) = try await CaptureHarness().play(samples: silence, startsItself: true) { player, ids in
            try await player.perform(.setBeat(TrackBeat(bpm: 120)))
            try await player.perform(.metronome(MetronomePlan(beatsPerBar: 4)))
            try await player.perform(.speedTrainer(Self.plan))
            try await player.setLoop(entry: ids[0], LoopRegion(start: 0, end: Int64(bar), repeatCount: 7))
            try await player.perform(.playEntry(ids[0]))
        }
        let clicks = MetronomeTests.clicks(int16Samples(bytes))
        let accented = clicks.filter { $0.peak > 12_000 }.map(\.frame)
        // 8 passes, then the track goes on from B (a bar one too).
        #expect(accented.count == 9, "accented clicks at \(accented)")
        var expectedStart = 0
        for (pass, tempo) in Self.passTempos.enumerated() where pass + 1 < accented.count {
            #expect(abs(accented[pass] - expectedStart) <= pass,
                    "pass \(pass + 1) starts at \(accented[pass]), the plan says \(expectedStart)")
            // The four beats of the pass, a beat / tempo apart: one tempo throughout the pass.
            let beats = clicks.map(\.frame).filter { $0 >= accented[pass] && $0 < accented[pass] + Self.passFrames(bar, at: tempo) - 8 }
            let gaps = zip(beats.dropFirst(), beats).map { $0 - $1 }
            let beat = Self.passFrames(22_050, at: tempo)
            #expect(beats.count == 4 && gaps.allSatisfy { abs($0 - beat) <= 1 },
                    "pass \(pass + 1) at \(tempo) %: clicks \(gaps) apart, a beat is \(beat)")
            let length = accented[pass + 1] - accented[pass]
            let planned = Self.passFrames(bar, at: tempo)
            #expect(abs(length - planned) <= 1,
                    "pass \(pass + 1) at \(tempo) % lasts \(length) frames, \(bar) / \(Double(tempo) / 100) is \(planned)")
            expectedStart += Self.passFrames(bar, at: tempo)
        }
        // The rest of the track after the last pass, at the target.
        #expect(abs(bytes.count / 4 - (expectedStart + 22_050 / 2)) <= 8, "\(bytes.count / 4) frames in all")
        #expect(await player.status().tempoPercent == 100)
    }

    /// Music (a sweep) through 70 % → 100 % in 10 % steps of 3 passes, with a hard seam. The capture is exactly the
    /// passes' planned lengths and the rest of the file; cut where the plan says each pass begins, the passes at 100 %
    /// are the source region itself, bit for bit, and two passes at one tempo are the same stretched music sample for
    /// sample away from their joins, lined up within the join's 10 ms search (`StretchJoin`).
    @Test func passesOfOneTempoAreTheSameMusicAndTheTargetIsTheSource() async throws {
        var harness = try CaptureHarness()
        harness.config.loopCrossfadeMilliseconds = 0
        let region = 44_100
        let signal = TestSignal.sweep(frames: region + 4_410, channels: 2, bits: 16, seed: 38)
        let path = try harness.writeFLAC(signal)
        let (bytes, _) = try await harness.play([path]) { player, ids in
            try await player.perform(.speedTrainer(SpeedTrainerPlan(startPercent: 70, stepPercent: 10, everyPasses: 3,
                                                                      ceilingPercent: 100)))
            try await player.setLoop(entry: ids[0], LoopRegion(start: 0, end: Int64(region), repeatCount: 11))
        }
        let captured = int16Samples(bytes)
        let tempos = [70, 80, 90, 100].flatMap { [$0, $0, $0] }
        let planned = tempos.map { Self.passFrames(region, at: $0) }
        #expect(captured.count / 2 == planned.reduce(0, +) + 4_410, "\(captured.count / 2) frames")
        var passes: [[Int32]] = []
        var start = 0
        for frames in planned where (start + frames) * 2 <= captured.count {
            passes.append(Array(captured[(start * 2)..<((start + frames) * 2)]))
            start += frames
        }
        guard passes.count == 12 else { return }
        for step in 0..<3 {
            let (second, third) = (passes[step * 3 + 1], passes[step * 3 + 2])
            // The middle of one against the other shifted by up to 441 frames: one shift matches every sample.
            let middle = Array(third[(1_000 * 2)..<((third.count / 2 - 1_000) * 2)])
            let shift = (-441...441).first { s in
                middle.indices.allSatisfy { second[1_000 * 2 + s * 2 + $0] == middle[$0] }
            }
            #expect(shift != nil, "passes \(step * 3 + 2) and \(step * 3 + 3) at \(tempos[step * 3]) % are not the same music")
        }
        let source = Array(signal[0..<(region * 2)])
        for pass in 9..<12 {
            #expect(firstDifference(passes[pass], source) == nil, "pass \(pass + 1) at 100 % is the source region")
        }
        #expect(Array(captured[(start * 2)...]) == Array(signal[(region * 2)...]), "then the rest of the file")
    }
}
