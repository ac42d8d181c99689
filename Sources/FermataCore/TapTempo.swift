/// Tap tempo: a beat from button presses, as a musician taps along. The taps' times (CLOCK_MONOTONIC nanoseconds,
/// the kernel's edge timestamps for a button) are fitted with a straight line (least squares over up to the last eight
/// taps), so one early or late tap moves the result by a fraction of its error instead of all of it; a pause longer
/// than `restartAfter`, or a tap far from the beat so far (a missed or doubled tap: under 60 % or over 160 % of the
/// typical interval), starts a new count from that tap.
///
/// A value; part of the player's state (its reducer taps it).
public struct TapTempo: Sendable, Hashable {
    /// A gap this long (2 s: 30 BPM) ends a count.
    public static let restartAfter: UInt64 = 2_000_000_000
    /// Taps kept for the fit.
    public static let window = 8

    private(set) var taps: [UInt64] = []

    public init() {}

    /// Adds a tap; the tempo in beats per minute once there are two taps or more (nil before, or outside
    /// `CountInPlan.bpmRange`).
    public mutating func tap(atNanoseconds time: UInt64) -> Double? {
        if let last = taps.last {
            let gap = time &- last
            if time <= last || gap > Self.restartAfter {
                taps.removeAll()
            } else if taps.count >= 2 {
                let typical = median(intervals)
                if Double(gap) < typical * 0.6 || Double(gap) > typical * 1.6 { taps.removeAll() }
            }
        }
        taps.append(time)
        if taps.count > Self.window { taps.removeFirst(taps.count - Self.window) }
        return beatsPerMinute
    }

    /// The fitted tempo, or nil with fewer than two taps.
    public var beatsPerMinute: Double? {
        guard taps.count >= 2, let first = taps.first else { return nil }
        // Least-squares slope of tap time against tap number, in nanoseconds per beat (relative to the first tap, so
        // the sums stay small and exact in Double).
        let n = Double(taps.count)
        let meanIndex = (n - 1) / 2
        let times = taps.map { Double($0 - first) }
        let meanTime = times.reduce(0, +) / n
        var covariance = 0.0, variance = 0.0
        for (index, time) in times.enumerated() {
            covariance += (Double(index) - meanIndex) * (time - meanTime)
            variance += (Double(index) - meanIndex) * (Double(index) - meanIndex)
        }
        let interval = covariance / variance
        guard interval > 0 else { return nil }
        let bpm = 60e9 / interval
        return CountInPlan.bpmRange.contains(bpm) ? bpm : nil
    }

    private var intervals: [Double] { zip(taps.dropFirst(), taps).map { Double($0 - $1) } }

    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2]
            : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
