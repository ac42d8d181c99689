import AudioCore
import Engine
import FermataCore
import Foundation
import Player
import TestSupport
import Testing

/// Gapless playback of the formats owners bring, through the real engine into ALSA's `file` capture: a 30 s source
/// cut into four tracks at offsets no codec frame lines up with, each encoded by the encoder people use.
///
/// The capture has exactly the source's frame count; ALAC is bit-exact to the source; each lossy track's samples are
/// the reference decoder's (`mpg123`, `ffmpeg`, `opusdec`), trimmed as the format says. The residual against the source
/// at each seam is printed beside the interior's (lossy coding error is larger where a track starts and ends; a
/// click or a gap would be far larger still).
@Suite(.serialized) struct GaplessLossyTests {
    static let seconds = 30
    /// Cut points as fractions of the source, then nudged off every codec's frame grid.
    static func cuts(frames: Int) -> [Int] { [frames / 4 + 1_111, frames / 2 + 2_223, frames * 3 / 4 + 3_337] }

    struct Result {
        var captured: [Float]
        var source: [Int32]
        var bounds: [Int]
        var files: [String]
    }

    /// Encodes the pieces and plays them; the capture as floats (the device runs the first track's format).
    func play(_ kind: LossyFixture.Kind, rate: Int, harness: CaptureHarness) async throws -> Result {
        let frames = Self.seconds * rate
        let source = TestSignal.sweep(frames: frames, channels: 2, bits: 16, sampleRate: rate, seed: 5)
        let bounds = [0] + Self.cuts(frames: frames) + [frames]
        var files: [String] = []
        for index in 0..<4 {
            let wav = harness.directory.file("piece\(index).wav")
            try WAVFixture.write(path: wav, samples: Array(source[(bounds[index] * 2)..<(bounds[index + 1] * 2)]),
                                 channels: 2, sampleRate: rate, kind: .pcm16)
            let path = harness.directory.file("piece\(index).\(kind.fileExtension)")
            try LossyFixture.encode(kind, wav: wav, to: path)
            files.append(path)
        }
        let (bytes, _) = try await harness.play(files)
        let captured: [Float]
        if kind == .alac {
            captured = int16Samples(bytes).map { Float($0) / 32768 }
        } else {
            captured = LossyFixture.floats(Data(bytes))
        }
        return Result(captured: captured, source: source, bounds: bounds, files: files)
    }

    /// RMS of captured − source over `frames` frames from `start` (both channels).
    static func residual(_ result: Result, from start: Int, frames: Int) -> Double {
        var sum = 0.0
        let begin = max(0, start), end = min(result.source.count / 2, start + frames)
        guard end > begin else { return 0 }
        for index in (begin * 2)..<(end * 2) {
            let error = Double(result.captured[index]) - Double(result.source[index]) / 32768
            sum += error * error
        }
        return (sum / Double((end - begin) * 2)).squareRoot()
    }

    /// The shift (−8…8 frames) at which the capture best matches the source over `frames` frames from `start`.
    static func bestLag(_ result: Result, from start: Int, frames: Int) -> Int {
        var best = (lag: 0, error: Double.infinity)
        for lag in -8...8 {
            var sum = 0.0
            for index in (start * 2)..<((start + frames) * 2) {
                let error = Double(result.captured[index]) - Double(result.source[index + lag * 2]) / 32768
                sum += error * error
            }
            if sum < best.error { best = (lag, sum) }
        }
        return best.lag
    }

    /// Checks each track against the reference decoder and prints the seam residuals; returns the worst seam/interior ratio.
    func checkAgainstReference(_ kind: LossyFixture.Kind, _ result: Result, tolerance: Float, directory: String) throws {
        for (index, file) in result.files.enumerated() {
            let reference = try LossyFixture.reference(kind, path: file, in: directory)
            let start = result.bounds[index] * 2, end = result.bounds[index + 1] * 2
            let track = Array(result.captured[start..<end])
            // ffmpeg keeps AAC's end padding (the trim Fermata applies from the sample table): compare its prefix.
            if kind == .mp3 || kind == .mp3CBR || kind == .opus {
                #expect(reference.count == track.count, "\(kind) track \(index): reference has \(reference.count / 2) frames")
            } else {
                #expect(reference.count >= track.count, "\(kind) track \(index): reference has \(reference.count / 2) frames")
            }
            var worst: Float = 0, at = -1
            for i in 0..<min(track.count, reference.count) where abs(track[i] - reference[i]) > worst {
                worst = abs(track[i] - reference[i])
                at = i
            }
            #expect(worst <= tolerance, "\(kind) track \(index): differs from the reference decoder by \(worst) at sample \(at)")
        }
        var line = "\(kind) residual against the source, RMS over 2048 frames:"
        for seam in result.bounds.dropFirst().dropLast() {
            let before = Self.residual(result, from: seam - 2048, frames: 2048)
            let after = Self.residual(result, from: seam, frames: 2048)
            let interior = Self.residual(result, from: seam - 40_000, frames: 2048)
            line += String(format: " seam %d: %.5f|%.5f (interior %.5f);", seam, before, after, interior)
            // Nothing added or lost: on both sides of the seam the capture lines up with the source at lag 0 (a
            // sample gained or dropped shifts every later one; the sweep makes any shift costly).
            for start in [seam - 6_000, seam + 4_000] {
                #expect(Self.bestLag(result, from: start, frames: 2_000) == 0, "\(kind): shifted near the seam at \(seam)")
            }
        }
        print(line)
    }

    @Test func mp3FromLAMEIsGaplessAndMatchesMpg123() async throws {
        let harness = try CaptureHarness()
        let result = try await play(.mp3, rate: 44_100, harness: harness)
        #expect(result.captured.count == result.source.count)
        try checkAgainstReference(.mp3, result, tolerance: 0, directory: harness.directory.path)
    }

    @Test func cbrMP3IsGapless() async throws {
        let harness = try CaptureHarness()
        let result = try await play(.mp3CBR, rate: 44_100, harness: harness)
        #expect(result.captured.count == result.source.count)
        try checkAgainstReference(.mp3CBR, result, tolerance: 0, directory: harness.directory.path)
    }

    @Test func aacInM4AIsGaplessAndMatchesFFmpeg() async throws {
        let harness = try CaptureHarness()
        let result = try await play(.aac, rate: 44_100, harness: harness)
        #expect(result.captured.count == result.source.count)
        try checkAgainstReference(.aac, result, tolerance: 0, directory: harness.directory.path)
    }

    @Test func alacIsBitExact() async throws {
        let harness = try CaptureHarness()
        let result = try await play(.alac, rate: 44_100, harness: harness)
        #expect(result.captured.count == result.source.count)
        let captured = result.captured.map { Int32(($0 * 32768).rounded()) }
        #expect(firstDifference(captured, result.source) == nil)
    }

    @Test func opusIsGaplessAndMatchesOpusdec() async throws {
        let harness = try CaptureHarness()
        let result = try await play(.opus, rate: 48_000, harness: harness)
        #expect(result.captured.count == result.source.count)
        // opusdec and libopusfile run the same libopus: equal to within float rounding.
        try checkAgainstReference(.opus, result, tolerance: 1.0 / 32768, directory: harness.directory.path)
    }
}
