import AudioCore
import Engine
import FermataCore
import Foundation
import Player
import TestSupport
import Testing

/// Practice sections on captured PCM: playing a section from a stopped player loops exactly its region, exactly its
/// number of passes, then plays on from its end; each of three sections of one track (hard seams, so the capture is
/// the source's own samples).
@Suite struct SectionTests {
    static let sections = [
        PracticeSection(name: "intro", startMilliseconds: 100, endMilliseconds: 300, passes: 3),
        PracticeSection(name: "solo", startMilliseconds: 500, endMilliseconds: 620, passes: 2),
        PracticeSection(name: "bars 17-32", startMilliseconds: 700, endMilliseconds: 1_000, passes: 1),
    ]

    @Test(arguments: [0, 1, 2])
    func aSectionLoopsExactlyItsLengthAndPassesThenPlaysOn(index: Int) async throws {
        var harness = try CaptureHarness()
        harness.config.loopCrossfadeMilliseconds = 0
        let signal = TestSignal.sweep(frames: 60_000, channels: 2, bits: 16, seed: 29)
        let (bytes, _) = try await harness.play(samples: signal, startsItself: true) { player, ids in
            try await player.perform(.setSections(entry: ids[0], Self.sections))
            try await player.perform(.playSection(.index(index)))
        }
        let section = Self.sections[index]
        let (a, b) = (Int(section.startMilliseconds) * 441 / 10, Int(section.endMilliseconds) * 441 / 10)
        var want: [Int32] = []
        for _ in 0..<(section.passes ?? 1) { want += signal[(a * 2)..<(b * 2)] }
        want += signal[(b * 2)...]
        let got = int16Samples(bytes)
        #expect(got.count == want.count, "\(got.count / 2) frames, want \((section.passes ?? 1)) × \(b - a) + \(60_000 - b)")
        #expect(firstDifference(got, want) == nil)
    }
}
