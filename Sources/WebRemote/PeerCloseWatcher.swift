import NIOCore

/// Notices that a connection's page has gone — the browser closed its side (a reload, a closed tab, a page hidden that
/// let its event stream go) or the connection failed — and tells what waits for it: an event stream's loop, which
/// otherwise learnt it only when a write to the socket failed (Hummingbird allows half-closed connections, so the first
/// write after the browser's FIN still succeeds: up to two keep-alives, 30 s, with the stream's slot taken meanwhile).
///
/// One per connection, in its pipeline after the HTTP codec (`WebServer` adds it). Its state is used only on the
/// connection's event loop; `whenClosed` may be called from any task and hops there.
final class PeerCloseWatcher: ChannelInboundHandler, RemovableChannelHandler {
    /// Passes every request part through untouched.
    typealias InboundIn = NIOAny

    private var closed = false
    private var waiting: [@Sendable () -> Void] = []

    /// Runs `action` once `channel`'s peer has closed its side or the connection has ended — at once if it already
    /// has (or when the channel has no watcher, as in tests without a socket).
    static func whenClosed(_ channel: any Channel, _ action: @escaping @Sendable () -> Void) async {
        let registered = try? await channel.eventLoop.submit { () -> Bool in
            guard channel.isActive,
                  let watcher = try? channel.pipeline.syncOperations.handler(type: PeerCloseWatcher.self) else { return false }
            watcher.add(action)
            return true
        }.get()
        if registered != true { action() }
    }

    private func add(_ action: @escaping @Sendable () -> Void) {
        if closed { action() } else { waiting.append(action) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { close() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        close()
        context.fireChannelInactive()
    }

    private func close() {
        closed = true
        let actions = waiting
        waiting = []
        for action in actions { action() }
    }
}
