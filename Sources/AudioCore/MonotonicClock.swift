import Glibc

/// CLOCK_MONOTONIC, the one clock of every duration Fermata measures: the output thread's first frame, the sinks'
/// pacing and stall detection, GPIO edge timestamps and the controls' timers, the benchmarks. It never steps when a
/// board without a real-time clock learns the time at boot, and it counts from the kernel's boot, as the kernel's
/// own GPIO edge timestamps do. Read through the vDSO: no system call, no lock, no allocation, so the audio thread
/// may call it. Any thread.
public enum MonotonicClock {
    /// Nanoseconds since boot.
    @inline(__always)
    public static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(truncatingIfNeeded: now.tv_sec) &* 1_000_000_000 &+ UInt64(truncatingIfNeeded: now.tv_nsec)
    }

    /// Seconds since boot, with the nanoseconds as a fraction.
    public static func seconds() -> Double { Double(nanoseconds()) / 1e9 }

    /// Sleeps `seconds` on this clock (fractions allowed; at most a day, so the conversions cannot trap; nothing for
    /// zero, negative or NaN); a signal does not cut it short.
    public static func sleep(seconds: Double) {
        guard seconds > 0 else { return }
        let seconds = min(seconds, 86_400)
        let whole = Int(seconds)
        var request = timespec(tv_sec: whole, tv_nsec: Int((seconds - Double(whole)) * 1e9))
        var remaining = timespec()
        while clock_nanosleep(CLOCK_MONOTONIC, 0, &request, &remaining) == EINTR { request = remaining }
    }
}
