import NIOCore
import Synchronization

/// Counts and remembers the open client channels of one listener: enforces that listener's limit and closes everyone
/// at shutdown. Each listener has its own registry, so clients of one (TCP) can never use up another's (the Unix
/// socket's) budget.
///
/// Thread-safe (a mutex); called from the child channel initializers on any event loop and from `MPDServer.run`.
final class ConnectionRegistry: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        var accepting = true
    }

    private let state = Mutex(State())
    let limit: Int
    /// The listener, for log lines ("TCP", "Unix socket").
    let name: String

    init(limit: Int, name: String) {
        self.limit = limit
        self.name = name
    }

    /// Registers `channel` if there is room and the server still accepts; it unregisters itself when it closes.
    func admit(_ channel: any Channel) -> Bool {
        let key = ObjectIdentifier(channel)
        let admitted = state.withLock { state in
            guard state.accepting, state.channels.count < limit else { return false }
            state.channels[key] = channel
            return true
        }
        if admitted {
            channel.closeFuture.whenComplete { [self] _ in _ = state.withLock { $0.channels.removeValue(forKey: key) } }
        }
        return admitted
    }

    var count: Int { state.withLock { $0.channels.count } }

    /// Stops admitting, closes every client and waits until all are closed.
    func closeAll() async {
        let channels = state.withLock { state in
            state.accepting = false
            return Array(state.channels.values)
        }
        for channel in channels { channel.close(promise: nil) }
        for channel in channels { try? await channel.closeFuture.get() }
    }
}
