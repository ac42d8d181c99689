import Foundation

/// Normalised cross-correlation by FFT, for finding a known excerpt in audio that went through a re-timing chain.
///
/// Stateless; any thread (seconds of CPU for a million samples in a debug build: call through `onThread`).
enum CrossCorrelation {
    /// The highest normalised correlation (−1…1) of `excerpt` against every window of `signal` with some energy.
    static func peak(of excerpt: [Double], in signal: [Double]) -> Double {
        var size = 1
        while size < signal.count + excerpt.count { size <<= 1 }
        var a = (re: signal + [Double](repeating: 0, count: size - signal.count), im: [Double](repeating: 0, count: size))
        var b = (re: excerpt + [Double](repeating: 0, count: size - excerpt.count), im: [Double](repeating: 0, count: size))
        fft(&a.re, &a.im, inverse: false)
        fft(&b.re, &b.im, inverse: false)
        for k in 0..<size {  // A · conj(B)
            let re = a.re[k] * b.re[k] + a.im[k] * b.im[k]
            let im = a.im[k] * b.re[k] - a.re[k] * b.im[k]
            a.re[k] = re
            a.im[k] = im
        }
        fft(&a.re, &a.im, inverse: true)
        let m = excerpt.count
        let excerptEnergy = excerpt.reduce(0) { $0 + $1 * $1 }
        var prefix = [Double](repeating: 0, count: signal.count + 1)
        for i in 0..<signal.count { prefix[i + 1] = prefix[i] + signal[i] * signal[i] }
        var best = 0.0
        for lag in 0...(max(0, signal.count - m)) {
            let energy = prefix[min(signal.count, lag + m)] - prefix[lag]
            guard energy > 0.05 * excerptEnergy else { continue }
            best = max(best, a.re[lag] / Double(size) / (energy * excerptEnergy).squareRoot())
        }
        return best
    }

    /// In-place iterative radix-2 FFT (unscaled both ways).
    private static func fft(_ re: inout [Double], _ im: inout [Double], inverse: Bool) {
        let n = re.count
        re.withUnsafeMutableBufferPointer { re in
            im.withUnsafeMutableBufferPointer { im in
                var j = 0
                for i in 1..<n {
                    var bit = n >> 1
                    while j & bit != 0 { j ^= bit; bit >>= 1 }
                    j |= bit
                    if i < j { re.swapAt(i, j); im.swapAt(i, j) }
                }
                var length = 2
                while length <= n {
                    let angle = (inverse ? 2 : -2) * Double.pi / Double(length)
                    let (wr, wi) = (cos(angle), sin(angle))
                    for start in stride(from: 0, to: n, by: length) {
                        var (cr, ci) = (1.0, 0.0)
                        for k in 0..<(length / 2) {
                            let (u, v) = (start + k, start + k + length / 2)
                            let tr = re[v] * cr - im[v] * ci
                            let ti = re[v] * ci + im[v] * cr
                            re[v] = re[u] - tr
                            im[v] = im[u] - ti
                            re[u] += tr
                            im[u] += ti
                            (cr, ci) = (cr * wr - ci * wi, cr * wi + ci * wr)
                        }
                    }
                    length <<= 1
                }
            }
        }
    }
}
