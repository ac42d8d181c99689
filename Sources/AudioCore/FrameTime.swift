/// Seconds and milliseconds to source frames, total for any input: the player turns numbers from the protocol, the
/// CLI, buttons and saved state into frame positions with these, so no value (NaN, ±inf, 1e308, Int.max) can trap.
///
/// Pure functions; callable from any thread.
public enum FrameTime {
    /// The furthest frame a position may name: 2^40 frames, about 290 days at 44.1 kHz and far from Int64's limit, so
    /// sums and differences of positions cannot overflow either. A seek there simply lands after the end.
    public static let maxFrame: Int64 = 1 << 40

    /// `seconds` at `rate` frames per second, truncated; NaN and negative values give 0, huge ones `maxFrame`.
    public static func frames(seconds: Double, rate: Int) -> Int64 {
        let value = seconds * Double(max(0, rate))
        guard value > 0 else { return 0 }  // also NaN
        return value >= Double(maxFrame) ? maxFrame : Int64(value)
    }

    /// `milliseconds` at `rate`, truncated (exact integer arithmetic); negative values give 0, huge ones `maxFrame`.
    public static func frames(milliseconds: Int64, rate: Int) -> Int64 {
        guard milliseconds > 0, rate > 0 else { return 0 }
        let (product, overflow) = milliseconds.multipliedReportingOverflow(by: Int64(rate))
        return overflow ? maxFrame : min(maxFrame, product / 1000)
    }

    /// `frames` at `rate` in milliseconds, rounded (0 at an unknown rate), within ±`maxFrame` so it cannot trap.
    public static func milliseconds(frames: Int64, rate: Int) -> Int64 {
        guard rate > 0 else { return 0 }
        let value = (Double(frames) / Double(rate) * 1000).rounded()
        return Int64(max(-Double(maxFrame), min(Double(maxFrame), value)))
    }

    /// A signed frame offset for `milliseconds` at `rate`, clamped to ±`maxFrame`.
    public static func offset(milliseconds: Int, rate: Int) -> Int64 {
        let value = Double(milliseconds) * Double(max(0, rate)) / 1000
        return Int64(max(-Double(maxFrame), min(Double(maxFrame), value)))
    }

    /// `frame` moved by `offset`, kept within 0…`maxFrame`.
    public static func moved(_ frame: Int64, by offset: Int64) -> Int64 {
        let (sum, overflow) = frame.addingReportingOverflow(offset)
        if overflow { return offset > 0 ? maxFrame : 0 }
        return min(maxFrame, max(0, sum))
    }
}
