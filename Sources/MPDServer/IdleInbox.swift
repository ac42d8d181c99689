import MPDProtocol
import Synchronization

/// Collects change notifications for one connection between event-loop hops, so a burst of `publish` calls costs
/// one scheduled task and one bit mask, never a queue.
///
/// Thread-safe: `add` is called on the publishing thread, `take` on the connection's event loop.
final class IdleInbox: Sendable {
    private let state = Mutex((changes: IdleSet(), scheduled: false))

    /// Adds `changes`; true when the caller must schedule a delivery (none is pending yet).
    func add(_ changes: IdleSet) -> Bool {
        state.withLock { state in
            state.changes.formUnion(changes)
            defer { state.scheduled = true }
            return !state.scheduled
        }
    }

    /// Takes everything collected and allows the next delivery to be scheduled.
    func take() -> IdleSet {
        state.withLock { state in
            defer { state = (IdleSet(), false) }
            return state.changes
        }
    }
}
