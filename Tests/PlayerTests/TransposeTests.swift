import AudioCore
import Engine
import FermataCore
import Foundation
import Player
import TestSupport
import Testing

/// Transposition without tempo change (SoundTouch in the decoder's float stage), on captured PCM: the fundamental
/// moves by the right ratio (FFT), the length stays, tempo and transposition combine, and back at 0 the path is the
/// untouched, bit-exact one.
@Suite struct TransposeTests {
    /// The left channel as doubles.
    static func left(_ samples: [Int32]) -> [Double] {
        stride(from: 0, to: samples.count, by: 2).map { Double(samples[$0]) }
    }

    static func playTone(cents: Int, tempo: Int = 100) async throws -> (frames: Int, captured: [Int32], status: PlayerStatus) {
        let frames = 88_200
        let (bytes, player) = try await CaptureHarness().play(samples: TempoTests.tone(frames: frames)) { player, _ in
            try await player.perform(.setTranspose(cents: cents))
            if tempo != 100 { try await player.perform(.setTempo(percent: tempo)) }
        }
        return (frames, int16Samples(bytes), await player.status())
    }

    @Test(arguments: [1200, 700, -500, 50])
    func theFundamentalMovesByTheRatioAndTheLengthStays(cents: Int) async throws {
        let (frames, captured, status) = try await Self.playTone(cents: cents)
        let expected = 440 * pow(2, Double(cents) / 1200)
        let measured = Spectrum.dominantFrequency(Self.left(captured), rate: 44_100)
        #expect(abs(measured - expected) < expected * 0.002, "\(measured) Hz at \(cents) cents, expected \(expected)")
        let got = captured.count / 2
        #expect(got == frames, "\(got) frames transposed, \(frames) in the file")
        #expect(status.transposeCents == cents && status.tempoPercent == 100)
    }

    @Test func transpositionAndTempoTogether() async throws {
        let (frames, captured, _) = try await Self.playTone(cents: 700, tempo: 80)
        let expected = 440 * pow(2, 7.0 / 12)
        let measured = Spectrum.dominantFrequency(Self.left(captured), rate: 44_100)
        #expect(abs(measured - expected) < expected * 0.002, "\(measured) Hz, expected \(expected)")
        let length = Double(frames) * 100 / 80
        #expect(abs(Double(captured.count / 2) - length) / length < 0.01)
    }

    @Test func theToneItselfMeasuresAt440() async throws {
        let (_, captured, _) = try await Self.playTone(cents: 0)
        #expect(abs(Spectrum.dominantFrequency(Self.left(captured), rate: 44_100) - 440) < 0.5)
    }

    @Test func backAtZeroIsBitExact() async throws {
        let signal = TestSignal.sweep(frames: 50_000, channels: 2, bits: 16, seed: 73)
        let (bytes, _) = try await CaptureHarness().play(samples: signal) { player, _ in
            try await player.perform(.setTranspose(cents: 300))
            try await player.perform(.setTranspose(cents: 0))
        }
        #expect(firstDifference(int16Samples(bytes), signal) == nil)
    }

    @Test func outOfRangeIsRefusedAndButtonsClamp() async throws {
        _ = try await CaptureHarness().play(samples: TempoTests.tone(frames: 4_410)) { player, _ in
            await #expect(throws: Player.ActionError.self) { try await player.perform(.setTranspose(cents: 1251)) }
            await #expect(throws: Player.ActionError.self) { try await player.perform(.setTranspose(cents: Int.min)) }
            for _ in 0..<30 { try await player.perform(.changeTranspose(by: 50)) }
            #expect(await player.status().transposeCents == 1250)
            try await player.perform(.changeTranspose(by: Int.min))
            #expect(await player.status().transposeCents == -1250)
        }
    }
}
