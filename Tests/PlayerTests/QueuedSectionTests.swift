import AudioCore
import Engine
import FermataCore
import Foundation
import Player
import TestSupport
import Testing

/// Sections queued as entries of their own (a stored playlist's "the solo four times, then the whole track"), on
/// captured PCM: each entry plays exactly its part of the file, exactly its passes, in the order the queue names,
/// gaplessly into the next — and a section with its own tempo hands back to the listener's 100 %, bit-exact.
@Suite struct QueuedSectionTests {
    static let sections = [
        PracticeSection(name: "intro", startMilliseconds: 100, endMilliseconds: 300, passes: 3),
        PracticeSection(name: "solo", startMilliseconds: 500, endMilliseconds: 620, passes: 2),
        PracticeSection(name: "bars 17-32", startMilliseconds: 700, endMilliseconds: 1_000, passes: 1),
    ]

    /// Frame of `ms` at 44.1 kHz.
    static func frame(_ ms: Int64) -> Int { Int(ms) * 441 / 10 }

    @Test func queuedSectionsPlayTheirPartsAndPassesInQueueOrderThenTheWholeTrack() async throws {
        var harness = try CaptureHarness()
        harness.config.loopCrossfadeMilliseconds = 0
        let signal = TestSignal.sweep(frames: 60_000, channels: 2, bits: 16, seed: 31)
        let path = try harness.writeFLAC(signal)
        // The queue names them out of the track's order: solo, bars, intro, then the whole track.
        let order = [1, 2, 0]
        let (bytes, _) = try await harness.play(Array(repeating: path, count: 4)) { player, ids in
            for (entry, index) in zip(ids, order) {
                try await player.setSpan(PlaySpan(section: Self.sections[index]), of: entry)
            }
        }
        var want: [Int32] = []
        var seams: [Int] = []
        for index in order {
            let section = Self.sections[index]
            let (a, b) = (Self.frame(section.startMilliseconds), Self.frame(section.endMilliseconds))
            for _ in 0..<(section.passes ?? 1) { want += signal[(a * 2)..<(b * 2)] }
            seams.append(want.count / 2)
        }
        want += signal
        let got = int16Samples(bytes)
        #expect(got.count == want.count, "\(got.count / 2) frames, want \(want.count / 2) (seams at \(seams))")
        let difference = firstDifference(got, want)
        #expect(difference == nil, "first difference at frame \((difference ?? 0) / 2); seams at \(seams)")
    }

    /// A section at 80 % then the whole track: the section is time-stretched (≈ 1.25 × its length), the whole track
    /// after it is the source's own samples again, and the status shows 80 % only while the section plays.
    @Test func aSectionsOwnTempoEndsWithItsEntry() async throws {
        var harness = try CaptureHarness()
        harness.config.loopCrossfadeMilliseconds = 0
        let signal = TestSignal.sweep(frames: 44_100, channels: 2, bits: 16, seed: 37)
        let path = try harness.writeFLAC(signal)
        let slow = PlaySpan(startMilliseconds: 200, endMilliseconds: 700, passes: 2, tempoPercent: 80, section: "slow")
        let (bytes, player) = try await harness.play([path, path]) { player, ids in
            try await player.setSpan(slow, of: ids[0])
        }
        let got = int16Samples(bytes)
        let stretched = got.count / 2 - 44_100
        // Two passes of 500 ms at 80 %: 2 × 22,050 / 0.8 = 55,125 frames, give or take the stretcher's edges.
        #expect(abs(stretched - 55_125) < 1_500, "\(stretched) frames for the slow section")
        #expect(got.count >= signal.count)
        let tail = Array(got.suffix(signal.count))
        #expect(firstDifference(tail, signal) == nil, "the whole track after the section is not bit-exact")
        let status = await player.status()
        #expect(status.tempoPercent == 100)
    }

    /// A set list of sections under `repeat`: it cycles for ever, each round exactly the parts and passes of the last
    /// (the capture, stopped after three rounds or more, is a prefix of the rounds repeated).
    @Test func aSetListOfSectionsCyclesForEverUnderRepeat() async throws {
        var harness = try CaptureHarness()
        harness.config.loopCrossfadeMilliseconds = 0
        let signal = TestSignal.sweep(frames: 50_000, channels: 2, bits: 16, seed: 41)
        let path = try harness.writeFLAC(signal)
        let capture = harness.directory.file("capture.raw")
        var round: [Int32] = []
        for section in Self.sections {
            let (a, b) = (Self.frame(section.startMilliseconds), Self.frame(section.endMilliseconds))
            for _ in 0..<(section.passes ?? 1) { round += signal[(a * 2)..<(b * 2)] }
        }
        let roundBytes = round.count * 2
        let (bytes, _) = try await harness.play(Array(repeating: path, count: 3)) { player, ids in
            for (entry, section) in zip(ids, Self.sections) {
                try await player.setSpan(PlaySpan(section: section), of: entry)
            }
            try await player.perform(.setRepeat(.queue))
            // Stops once three rounds are captured (the stream would go on for ever). The capture is unpaced, so how
            // long that takes is the machine's load: the bound is the harness's own ceiling, only a hang detector
            // (the harness fails a capture that stalls, or grows past any test's size, before it).
            Task {
                let deadline = ContinuousClock.now + Patience.ceiling
                while ContinuousClock.now < deadline {
                    let size = (try? FileManager.default.attributesOfItem(atPath: capture)[.size] as? Int) ?? 0
                    if size >= 3 * roundBytes { break }
                    try? await Task.sleep(for: .milliseconds(20))
                }
                try? await player.perform(.stop)
            }
        }
        let got = int16Samples(bytes)
        #expect(got.count >= 3 * round.count, "\(got.count / 2) frames captured, a round is \(round.count / 2)")
        var want: [Int32] = []
        while want.count < got.count { want += round }
        let difference = firstDifference(got, Array(want.prefix(got.count)))
        #expect(difference == nil, "first difference at frame \((difference ?? 0) / 2), round \(round.count / 2) frames")
    }
}
