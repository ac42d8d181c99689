import AudioCore
import Engine
import FermataCore
import Foundation
import Player
import TestSupport
import Testing

/// A–B loops on MP3 and AAC passages, hard cut (no crossfade), with A and B off the codecs' frame grids: every pass
/// is exactly B−A frames, and every sample is the one a straight decode gives there.
@Suite(.serialized) struct LossyLoopTests {
    static let a = 100_003
    static let b = 200_777
    static let passes = 5

    /// A straight capture of `kind` and a looped one, as floats.
    func captures(_ kind: LossyFixture.Kind) async throws -> (straight: [Float], looped: [Float]) {
        var harness = try CaptureHarness()
        harness.config.loopCrossfadeMilliseconds = 0
        let signal = TestSignal.sweep(frames: 8 * 44_100, channels: 2, bits: 16, seed: 21)
        let wav = harness.directory.file("loop.wav")
        try WAVFixture.write(path: wav, samples: signal, channels: 2, sampleRate: 44_100, kind: .pcm16)
        let path = harness.directory.file("loop.\(kind.fileExtension)")
        try LossyFixture.encode(kind, wav: wav, to: path)
        let (straight, _) = try await harness.play([path], capture: "straight.raw")
        let (looped, _) = try await harness.play([path], capture: "looped.raw") { player, ids in
            try await player.setLoop(entry: ids[0], LoopRegion(start: Int64(Self.a), end: Int64(Self.b),
                                                               repeatCount: Self.passes))
        }
        return (LossyFixture.floats(Data(straight)), LossyFixture.floats(Data(looped)))
    }

    static func expected(_ straight: [Float]) -> [Float] {
        var out = Array(straight[0..<(b * 2)])
        for _ in 0..<passes { out += straight[(a * 2)..<(b * 2)] }
        out += straight[(b * 2)...]
        return out
    }

    static func firstDifference(_ x: [Float], _ y: [Float]) -> Int? {
        if let index = zip(x, y).enumerated().first(where: { $0.element.0.bitPattern != $0.element.1.bitPattern })?.offset {
            return index
        }
        return x.count == y.count ? nil : min(x.count, y.count)
    }

    @Test func mp3LoopPassesAreTheStraightDecode() async throws {
        let (straight, looped) = try await captures(.mp3)
        #expect(straight.count == 8 * 44_100 * 2)
        let want = Self.expected(straight)
        #expect(looped.count == want.count)
        #expect(Self.firstDifference(looped, want) == nil)
    }

    @Test func aacLoopPassesAreTheStraightDecode() async throws {
        let (straight, looped) = try await captures(.aacNoPNS)
        #expect(straight.count == 8 * 44_100 * 2)
        let want = Self.expected(straight)
        #expect(looped.count == want.count)
        #expect(Self.firstDifference(looped, want) == nil)
    }

    /// AAC with noise substitution (FFmpeg's default): the noise bands come from a random generator, so a pass
    /// cannot equal the straight decode there; every pass is still exactly B−A frames and the same as every other.
    @Test func aacWithNoiseSubstitutionRepeatsTheSamePass() async throws {
        let (straight, looped) = try await captures(.aac)
        let length = (Self.b - Self.a) * 2
        #expect(looped.count == straight.count + Self.passes * length)
        let firstPass = Array(looped[(Self.b * 2)..<(Self.b * 2 + length)])
        for pass in 1..<Self.passes {
            let start = Self.b * 2 + pass * length
            #expect(Self.firstDifference(Array(looped[start..<(start + length)]), firstPass) == nil, "pass \(pass + 1)")
        }
        // Close to the straight decode everywhere (only the substituted noise differs).
        let reference = straight[(Self.a * 2)..<(Self.b * 2)]
        let rms = (zip(firstPass, reference).reduce(0.0) { $0 + Double(($1.0 - $1.1) * ($1.0 - $1.1)) } / Double(length)).squareRoot()
        #expect(rms < 0.02, "pass differs from the straight decode by \(rms) RMS")
    }
}
