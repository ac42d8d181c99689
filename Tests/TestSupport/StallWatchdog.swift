import AudioCore
import Glibc
import Synchronization

/// Ends a two-thread stress test that makes no progress (the ordering tests of the ring, the SPSC queue and the
/// seqlock): both threads call `progress()` after each step and `spin()` (which yields the
/// CPU) while they wait. After `stallSeconds` without progress from either side, or once a side has called
/// `abandon()`, `spin()` answers false to both.
public final class StallWatchdog: Sendable {
    private let lastProgress = Atomic<Int>(0)
    private let gaveUp = Atomic<Bool>(false)
    private let stallNanoseconds: Int

    public init(stallSeconds: Double) {
        stallNanoseconds = Int(stallSeconds * 1e9)
        lastProgress.store(Self.now(), ordering: .relaxed)
    }

    public func progress() { lastProgress.store(Self.now(), ordering: .relaxed) }

    /// Makes every later `spin()` answer false at once (one side has stopped; the other must not wait for it).
    public func abandon() { gaveUp.store(true, ordering: .relaxed) }

    /// Yields the CPU; false once the test has made no progress for too long.
    public func spin() -> Bool {
        sched_yield()
        if gaveUp.load(ordering: .relaxed) { return false }
        if Self.now() - lastProgress.load(ordering: .relaxed) > stallNanoseconds {
            gaveUp.store(true, ordering: .relaxed)
            return false
        }
        return true
    }

    private static func now() -> Int { Int(truncatingIfNeeded: MonotonicClock.nanoseconds()) }
}
