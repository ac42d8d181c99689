import Glibc

/// The one time base of every measurement in this benchmark: CLOCK_MONOTONIC in seconds.
enum Monotonic {
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Sleeps for `seconds` (fractions allowed).
    static func sleep(_ seconds: Double) {
        guard seconds > 0 else { return }  // also NaN
        let seconds = min(seconds, 86_400)  // the conversions below cannot trap
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
        var remaining = timespec()
        while nanosleep(&request, &remaining) == -1 && errno == EINTR { request = remaining }
    }
}
