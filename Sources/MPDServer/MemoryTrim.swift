import AudioCore
import FermataCore
import Glibc
import Synchronization

/// Gives the heap memory that a large answer used back to the kernel once it is sent. glibc keeps freed memory in
/// the process for reuse; after one client's 8 MiB listing fermatad's RSS stayed 50 MiB higher for good (on a board
/// with 512 MiB that is memory the page cache and the other services lose). `malloc_trim` returns the free pages.
///
/// Thread-safe (a `Mutex`); `afterLargeWrite` is called from event loops. Requests within 200 ms coalesce into one
/// trim, run on `BlockingWork` (it walks the heap: a few milliseconds).
enum MemoryTrim {
    /// Writes at least this large are worth a trim afterwards: 256 KiB, so a list of 16,384 `add`s (800 KB) or a
    /// 20,000-file `listall` (1 MB) is followed by one; at 1 MiB neither was, and 8 MiB of their freed heap stayed
    /// resident (`Tests/Tools/lossy-bench.sh --tests queue`).
    static let threshold = 1 << 18
    private static let scheduled = Mutex(false)

    /// Call when a write of `bytes` has completed (sent or dropped).
    static func afterLargeWrite(_ bytes: Int) {
        guard bytes >= threshold else { return }
        let first = scheduled.withLock { scheduled in
            defer { scheduled = true }
            return !scheduled
        }
        guard first else { return }
        Task.detached {
            try? await Task.sleep(for: .milliseconds(200))
            scheduled.withLock { $0 = false }
            _ = await BlockingWork.run { HeapTrim.now() }
        }
    }
}
