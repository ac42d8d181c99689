import Foundation

/// The directories still to list, shared by the walking threads: each takes one, lists it, and hands back its
/// subdirectories. Last in, first out, so the walk goes depth first and the pending list stays short.
///
/// Thread-safe (a condition variable guards it). `next` returns nil once no directory is pending and no thread is
/// listing one (or the scan was cancelled).
// @unchecked: `pending` and `busy` are read and written only under `condition` (a condition wait, which
// Synchronization's Mutex does not offer).
final class WalkQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var pending: [PendingDirectory]
    private var busy = 0
    private let isCancelled: @Sendable () -> Bool

    init(start: PendingDirectory, isCancelled: @escaping @Sendable () -> Bool) {
        pending = [start]
        self.isCancelled = isCancelled
    }

    /// The next directory to list, waiting while other threads may still add some; nil when the walk is over.
    func next() -> PendingDirectory? {
        condition.lock()
        defer { condition.unlock() }
        while pending.isEmpty, busy > 0, !isCancelled() { condition.wait() }
        guard let directory = pending.popLast(), !isCancelled() else {
            condition.broadcast()
            return nil
        }
        busy += 1
        return directory
    }

    /// Reports a listed directory and the subdirectories found in it.
    func finished(adding children: [PendingDirectory]) {
        condition.lock()
        pending.append(contentsOf: children.reversed())
        busy -= 1
        condition.broadcast()
        condition.unlock()
    }
}
