import Glibc

/// A counting wake-up signal built on a POSIX semaphore: `ring` never blocks and is safe on a real-time thread
/// (it is async-signal-safe and only enters the kernel when someone waits); `wait` blocks until rung or timed out.
///
/// Threads: any thread may `ring`; one thread waits.
public final class Doorbell: @unchecked Sendable {
    private let semaphore: UnsafeMutablePointer<sem_t>

    public init() {
        semaphore = .allocate(capacity: 1)
        sem_init(semaphore, 0, 0)
    }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    /// Wakes the waiter (or lets its next wait return at once).
    public func ring() { sem_post(semaphore) }

    /// Waits until rung; consumes all pending rings so a burst of rings wakes the waiter once.
    public func wait() {
        while sem_wait(semaphore) != 0 && errno == EINTR {}
        drain()
    }

    /// Waits until rung or `nanoseconds` have passed; true when rung.
    @discardableResult
    public func wait(nanoseconds: Int) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let total = Int(deadline.tv_nsec) + nanoseconds
        deadline.tv_sec += total / 1_000_000_000
        deadline.tv_nsec = total % 1_000_000_000
        while true {
            if sem_timedwait(semaphore, &deadline) == 0 { drain(); return true }
            if errno != EINTR { return false }
        }
    }

    private func drain() { while sem_trywait(semaphore) == 0 {} }
}
