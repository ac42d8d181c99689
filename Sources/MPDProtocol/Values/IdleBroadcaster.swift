import Synchronization

/// Fans change notifications out to every connection: the backend calls `publish`, each connection `subscribe`s once.
///
/// Thread-safe (a mutex guards the subscriber table); `publish` may be called from any thread or task. Callbacks run
/// synchronously on the publishing thread, outside the lock, so they must only hand the set over (the NIO server hops
/// to the connection's event loop) and never block. Each connection keeps its own pending `IdleSet`, so a slow or
/// absent reader costs one bit mask, not a growing queue.
public final class IdleBroadcaster: Sendable {
    public typealias Callback = @Sendable (IdleSet) -> Void

    private struct State {
        var nextID: UInt64 = 0
        var subscribers: [UInt64: Callback] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Registers `callback` for every later `publish`; the subscription ends when the token is cancelled or released.
    public func subscribe(_ callback: @escaping Callback) -> IdleSubscription {
        let id = state.withLock { state in
            state.nextID += 1
            state.subscribers[state.nextID] = callback
            return state.nextID
        }
        return IdleSubscription { [weak self] in self?.unsubscribe(id) }
    }

    /// Tells every subscriber that `changed` changed. Empty sets are ignored.
    public func publish(_ changed: IdleSet) {
        guard !changed.isEmpty else { return }
        let callbacks = state.withLock { Array($0.subscribers.values) }
        for callback in callbacks { callback(changed) }
    }

    /// How many subscriptions are live (for tests and diagnostics).
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    private func unsubscribe(_ id: UInt64) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: id) }
    }
}

/// A live `IdleBroadcaster` subscription; cancelled explicitly or when released.
public final class IdleSubscription: Sendable {
    private let cancelAction: Mutex<(@Sendable () -> Void)?>

    init(cancel: @escaping @Sendable () -> Void) { cancelAction = Mutex(cancel) }

    /// Stops deliveries; idempotent.
    public func cancel() {
        let action = cancelAction.withLock { slot in
            defer { slot = nil }
            return slot
        }
        action?()
    }

    deinit { cancel() }
}
