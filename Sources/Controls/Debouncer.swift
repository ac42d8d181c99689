/// Trailing-edge debounce for one input line: a new level is reported once the line has kept it for `period`,
/// stamped with the moment it became stable — the same behaviour, and the same timestamps, as the kernel's debounce
/// in the GPIO v2 API (gpiolib-cdev reports the level when its debounce timer expires). With a period of 0 (kernel
/// debounce active, or an encoder contact) every change passes at once and repeats of the same level are dropped.
///
/// Edges carry levels, not directions: under bounce the kernel reads the level when its interrupt thread runs, so two
/// consecutive events may both say "rising". Only the last level before a quiet period counts.
///
/// A value type; owned and driven by one thread (the GPIO thread), or by a test replaying recorded edges.
public struct Debouncer: Sendable, Equatable {
    public let period: UInt64
    /// The level last reported (the debounced state).
    public private(set) var stable: Bool
    /// The raw level last seen.
    private var raw: Bool
    /// When the raw level last changed, while a report is pending.
    private var pendingSince: UInt64?

    /// - Parameters:
    ///   - period: nanoseconds the line must stay quiet before its level counts (0: no debounce).
    ///   - initial: the logical level read when the line was requested.
    public init(period: UInt64, initial: Bool) {
        self.period = period
        stable = initial
        raw = initial
    }

    /// When `expire` must next be called, or nil while nothing is pending.
    public var deadline: UInt64? { pendingSince.map { $0 + period } }

    /// Feeds one edge. Returns the new stable level when it changes at once (period 0), else nil.
    public mutating func edge(level: Bool, at time: UInt64) -> Bool? {
        if period == 0 {
            raw = level
            guard level != stable else { return nil }
            stable = level
            return level
        }
        // Every edge restarts the quiet period, as the kernel's debounce timer does.
        raw = level
        pendingSince = time
        return nil
    }

    /// Call at or after `deadline`. Returns the new stable level and when it became stable, if it changed.
    public mutating func expire(now: UInt64) -> (level: Bool, at: UInt64)? {
        guard let since = pendingSince, now >= since + period else { return nil }
        pendingSince = nil
        guard raw != stable else { return nil }
        stable = raw
        return (raw, since + period)
    }
}
