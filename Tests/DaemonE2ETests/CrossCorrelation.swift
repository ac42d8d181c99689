import Foundation

/// Normalised cross-correlation by FFT, for finding known audio in audio that went through a re-timing chain.
///
/// Stateless; any thread (seconds of CPU for a million samples in a debug build: call through `onThread`).
enum CrossCorrelation {
    /// Where one window of the played audio was found in the received audio.
    struct WindowMatch: Sendable {
        /// The window's number (it covers played samples `index * window ..< (index + 1) * window`).
        let index: Int
        /// The best normalised correlation found (−1…1).
        let correlation: Double
        /// Where in the received audio the window starts at that correlation.
        let position: Int
    }

    /// The highest normalised correlation (−1…1) of `excerpt` against every window of `signal` with some energy.
    static func peak(of excerpt: [Double], in signal: [Double]) -> Double { best(of: excerpt, in: signal).correlation }

    /// Finds each `window`-sample piece of `played` in `received`, in order, allowing for gaps and skips between
    /// pieces (a re-timing chain may insert silence when starved, or drop audio to catch up).
    ///
    /// A piece is first looked for within `slack` samples of where the last well-matched piece (at least `good`)
    /// puts it; when it is not found there (after a larger gap, or for the first piece), in all of `received`.
    static func matchWindows(of played: [Double], in received: [Double], window: Int, slack: Int,
                             good: Double) -> [WindowMatch] {
        var offset: Int?  // received position minus played position, from the last good match
        var matches: [WindowMatch] = []
        for index in 0..<(played.count / window) {
            let start = index * window
            let piece = Array(played[start..<(start + window)])
            var found: (correlation: Double, position: Int)?
            if let offset {
                let low = max(0, start + offset - slack), high = min(received.count, start + offset + window + slack)
                if high - low >= window {
                    let near = best(of: piece, in: Array(received[low..<high]))
                    found = (near.correlation, low + near.lag)
                }
            }
            if (found?.correlation ?? -1) < good {
                let anywhere = best(of: piece, in: received)
                if anywhere.correlation > (found?.correlation ?? -1) { found = (anywhere.correlation, anywhere.lag) }
            }
            let match = WindowMatch(index: index, correlation: found?.correlation ?? 0, position: found?.position ?? -1)
            if match.correlation >= good { offset = match.position - start }
            matches.append(match)
        }
        return matches
    }

    /// The best normalised correlation of `piece` against the windows of `received` within `slack` samples of
    /// `position` (a local look, as `matchWindows` does it).
    static func correlation(of piece: [Double], near position: Int, in received: [Double], slack: Int) -> Double {
        let low = max(0, position - slack), high = min(received.count, position + piece.count + slack)
        guard high - low >= piece.count else { return 0 }
        return best(of: piece, in: Array(received[low..<high])).correlation
    }

    /// The highest normalised correlation of `excerpt` against every window of `signal` with some energy, and the
    /// window's start.
    static func best(of excerpt: [Double], in signal: [Double]) -> (correlation: Double, lag: Int) {
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
        var best = (correlation: 0.0, lag: 0)
        for lag in 0...(max(0, signal.count - m)) {
            let energy = prefix[min(signal.count, lag + m)] - prefix[lag]
            guard energy > 0.05 * excerptEnergy else { continue }
            let correlation = a.re[lag] / Double(size) / (energy * excerptEnergy).squareRoot()
            if correlation > best.correlation { best = (correlation, lag) }
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
