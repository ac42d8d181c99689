import CThreadShim
import Glibc

/// A counting wake-up signal built on a POSIX semaphore: `ring` never blocks and is safe on a real-time thread
/// (it is async-signal-safe and only enters the kernel when someone waits); `wait` blocks until rung or timed out.
///
/// Threads: any thread may `ring`; one thread waits.
/// `@unchecked Sendable`: the only state is the semaphore, which POSIX makes safe to post and wait on from any
/// thread; the pointer to it never changes after `init`.
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
    ///
    /// The time is measured on CLOCK_MONOTONIC: a board without a real-time clock steps its wall clock when it
    /// learns the time (NTP at boot), and a deadline on CLOCK_REALTIME would then be hours away or long gone.
    @discardableResult
    public func wait(nanoseconds: Int) -> Bool {
        guard fermata_sem_wait_monotonic(semaphore, Int64(nanoseconds)) == 0 else { return false }
        drain()
        return true
    }

    private func drain() { while sem_trywait(semaphore) == 0 {} }
}
