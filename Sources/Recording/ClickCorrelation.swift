import Glibc

/// The click `fermata audio latency` plays and how it is found again in a capture: a 6 ms burst of deterministic
/// noise (broadband, so its cross-correlation with itself is one sharp peak, unlike a tone's), located in the
/// captured samples by normalised cross-correlation within a window around where the clocks say it should be.
///
/// Threads: values and pure functions; any thread.
public enum ClickCorrelation {
    /// The click at `rate`: `milliseconds` of noise under a raised-cosine window, peak 0.5 of full scale.
    public static func click(rate: Int, milliseconds: Int = 6) -> [Float] {
        let count = max(16, rate * milliseconds / 1000)
        var state: UInt32 = 0x2545_F491
        return (0..<count).map { i in
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            let noise = Float(Int32(bitPattern: state)) / Float(Int32.max)
            let window = 0.5 - 0.5 * cosf(2 * .pi * Float(i) / Float(count - 1))
            return 0.5 * noise * window
        }
    }

    /// Where `template` begins in `signal`, searched from `from` to `to` (sample indices, clamped): the lag of the
    /// highest normalised cross-correlation, and that correlation (0…1). Nil when the window is empty or silent.
    public static func locate(_ template: [Float], in signal: [Float], from: Int, to: Int) -> (index: Int, score: Float)? {
        let m = template.count
        let lo = max(0, from), hi = min(signal.count - m, to)
        guard m > 0, hi >= lo else { return nil }
        let templateEnergy = template.reduce(0) { $0 + $1 * $1 }
        var best: (Int, Float)?
        signal.withUnsafeBufferPointer { s in
            template.withUnsafeBufferPointer { t in
                // The window's energy slides along with the lag.
                var energy: Float = 0
                for k in 0..<m { energy += s[lo + k] * s[lo + k] }
                for lag in lo...hi {
                    if lag > lo {
                        let out = s[lag - 1], into = s[lag + m - 1]
                        energy += into * into - out * out
                    }
                    var dot: Float = 0
                    for k in 0..<m { dot += s[lag + k] * t[k] }
                    let norm = (max(energy, 0) * templateEnergy).squareRoot()
                    guard norm > 1e-9 else { continue }
                    let score = dot / norm
                    if best == nil || score > best!.1 { best = (lag, score) }
                }
            }
        }
        return best
    }

    /// The round trip of a train of clicks found in `signal`: `predicted` holds, for each click played in order, the
    /// capture sample where it would begin if the round trip were zero (its heard instant through the clock lines),
    /// `spacing` the samples between two clicks. Nothing is played before the first click, so the first click heard
    /// from a little before its prediction (`rate / 50`: the clocks' offsets can make a round trip slightly negative)
    /// up to `maximum` samples after it (default `rate`: one second) is the first one played, however long the round
    /// trip — looking for each click near its own prediction instead would take a round trip longer than half the
    /// spacing for one a spacing shorter. Every click is then looked for within `rate / 100` of its prediction plus
    /// that round trip; the median of the offsets of those heard (score over 0.5), and how many were heard; nil
    /// when fewer than `minimumHeard`. (A first click lost while the others are heard would make it a spacing long.)
    public static func roundTrip(_ click: [Float], in signal: [Float], predicted: [Int], spacing: Int, rate: Int,
                                 minimumHeard: Int, maximum: Int? = nil) -> (samples: Int, heard: Int)? {
        guard let first = predicted.first, !click.isEmpty else { return nil }
        // Windows shorter than the spacing: one holds at most one click, and the first to hold one holds the first.
        let hop = max(2 * click.count, min(spacing / 2, rate / 4))
        var from = first - rate / 50
        var arrival: Int?
        while from <= first + (maximum ?? rate) {
            if let found = locate(click, in: signal, from: from, to: from + hop - 1), found.score > 0.5 {
                arrival = found.index - first
                break
            }
            from += hop
        }
        guard let arrival else { return nil }
        var offsets: [Int] = []
        let window = max(1, rate / 100)
        for p in predicted {
            guard let found = locate(click, in: signal, from: p + arrival - window, to: p + arrival + window),
                  found.score > 0.5 else { continue }
            offsets.append(found.index - p)
        }
        guard offsets.count >= minimumHeard, let median = median(offsets) else { return nil }
        return (median, offsets.count)
    }

    /// The median of `values` (nil when empty): one click misheard cannot move it.
    public static func median(_ values: [Int]) -> Int? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
