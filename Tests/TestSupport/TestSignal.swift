import Foundation

/// Deterministic test audio: a per-channel chirp plus low-level noise, as integer PCM.
///
/// Stateless; callable from any thread.
public enum TestSignal {
    /// `frames` interleaved frames of RIGHT-justified samples that fit in `bits` (4–32) bits.
    ///
    /// Each channel is a linear chirp with its own start frequency and phase (so channels differ and no stretch
    /// repeats) at about 60 % of full scale, plus ±1 % deterministic noise from `seed`; never constant.
    public static func sweep(
        frames: Int, channels: Int, bits: Int, sampleRate: Int = 44100, seed: UInt64 = 1
    ) -> [Int32] {
        precondition((4...32).contains(bits) && channels > 0 && frames >= 0 && sampleRate > 0)
        let peak = Double((Int64(1) << (bits - 1)) - 1)
        let low = -Double(Int64(1) << (bits - 1))
        var random = SplitMix64(seed: seed)
        var out = [Int32](repeating: 0, count: frames * channels)
        let rate = Double(sampleRate)
        let span = Double(max(frames, 1))
        for channel in 0..<channels {
            let startHz = 55.0 * Double(channel + 1)
            let endHz = min(rate * 0.42, 9_000.0 + 700.0 * Double(channel))
            var phase = 0.37 * Double(channel)
            for frame in 0..<frames {
                let hz = startHz + (endHz - startHz) * Double(frame) / span
                phase += 2 * Double.pi * hz / rate
                if phase > 2 * Double.pi { phase -= 2 * Double.pi }
                let noise = random.nextUnit() * 2 - 1
                let value = 0.6 * sin(phase) + 0.01 * noise
                let scaled = (value * peak).rounded()
                out[frame * channels + channel] = Int32(min(peak, max(low, scaled)))
            }
        }
        return out
    }

    /// The samples a decoder should emit for RIGHT-justified `bits`-bit input: shifted to the top of a 16-bit
    /// container (4–16 bits, values returned widened to Int32) or a 32-bit one (17–32 bits).
    public static func leftJustified(_ samples: [Int32], bits: Int) -> [Int32] {
        let shift = Int32((bits <= 16 ? 16 : 32) - bits)
        return samples.map { $0 &<< shift }
    }
}

/// A tiny deterministic PRNG (SplitMix64), so fixtures and corpora are identical on every run.
///
/// A value type; each user owns its own copy.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    public mutating func nextUnit() -> Double { Double(next() >> 11) / Double(UInt64(1) << 53) }

    /// Uniform in `range` (deterministic, unlike `Int.random(in:using:)` across library versions).
    public mutating func next(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }
}
