import Synchronization

/// One flag per file known before a scan, set by whichever walking thread meets the file and read by the scan thread
/// once the walkers are joined. A fixed-size array of atomic bytes (relaxed: the join orders the reads after every
/// mark), allocated once; marking takes no lock and allocates nothing.
///
/// Any thread may call `mark` and `isMarked`.
// @unchecked: a lock-free container. The only stored state is the pointer to `count` atomics, fixed at `init` and
// freed in `deinit`; every access to a flag is an atomic operation, so threads sharing it cannot race.
final class SeenFlags: @unchecked Sendable {
    private let flags: UnsafeMutablePointer<Atomic<UInt8>>
    let count: Int

    init(count: Int) {
        self.count = max(0, count)
        flags = .allocate(capacity: max(1, count))
        for offset in 0..<self.count { (flags + offset).initialize(to: Atomic(0)) }
    }

    deinit {
        flags.deinitialize(count: count)
        flags.deallocate()
    }

    func mark(_ index: Int) {
        precondition(index >= 0 && index < count, "flag \(index) of \(count)")
        flags[index].store(1, ordering: .relaxed)
    }

    func isMarked(_ index: Int) -> Bool {
        precondition(index >= 0 && index < count, "flag \(index) of \(count)")
        return flags[index].load(ordering: .relaxed) != 0
    }
}
