import Foundation

/// The strongest frequency in a signal, for tests that check pitch on captured PCM: a radix-2 FFT over a
/// Hann-windowed slice, the peak bin refined by parabolic interpolation of the log magnitudes (accurate to a small
/// fraction of a bin for a steady tone). A value namespace; any thread.
public enum Spectrum {
    /// The dominant frequency in Hz of `samples` (one channel) at `rate`, from the largest power-of-two window that
    /// fits, centred in the signal (away from its edges).
    public static func dominantFrequency(_ samples: [Double], rate: Double) -> Double {
        var size = 1
        while size * 2 <= samples.count { size *= 2 }
        let start = (samples.count - size) / 2
        var real = (0..<size).map { i in
            samples[start + i] * (0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(size - 1)))
        }
        var imaginary = [Double](repeating: 0, count: size)
        fft(&real, &imaginary)
        let magnitudes = (0..<(size / 2)).map { (real[$0] * real[$0] + imaginary[$0] * imaginary[$0]).squareRoot() }
        let peak = (1..<(magnitudes.count - 1)).max { magnitudes[$0] < magnitudes[$1] } ?? 1
        let (a, b, c) = (log(magnitudes[peak - 1] + 1e-12), log(magnitudes[peak] + 1e-12), log(magnitudes[peak + 1] + 1e-12))
        let offset = (a - c) / (2 * (a - 2 * b + c))
        return (Double(peak) + (offset.isFinite ? offset : 0)) * rate / Double(size)
    }

    /// In-place iterative radix-2 FFT; `real.count` must be a power of two.
    static func fft(_ real: inout [Double], _ imaginary: inout [Double]) {
        let n = real.count
        var j = 0
        for i in 1..<n {
            var bit = n >> 1
            while j & bit != 0 {
                j ^= bit
                bit >>= 1
            }
            j |= bit
            if i < j {
                real.swapAt(i, j)
                imaginary.swapAt(i, j)
            }
        }
        var length = 2
        while length <= n {
            let angle = -2 * Double.pi / Double(length)
            for block in stride(from: 0, to: n, by: length) {
                for k in 0..<(length / 2) {
                    let (wr, wi) = (cos(angle * Double(k)), sin(angle * Double(k)))
                    let (u, v) = (block + k, block + k + length / 2)
                    let tr = real[v] * wr - imaginary[v] * wi
                    let ti = real[v] * wi + imaginary[v] * wr
                    real[v] = real[u] - tr
                    imaginary[v] = imaginary[u] - ti
                    real[u] += tr
                    imaginary[u] += ti
                }
            }
            length <<= 1
        }
    }
}
