import FermataCore
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import MPDProtocol
import NIOCore
import ServiceLifecycle
import Synchronization

/// The web remote as a service: fermatad's own HTTP server (Hummingbird 2, on the event loops fermatad already runs)
/// for the page and its JSON API under `/api/`. It listens where the settings say — by default on the loopback address,
/// as the MPD port does; opening it to the network is `web.listen = "0.0.0.0:6680"`, and then every request from
/// elsewhere needs a session (`WebGate`). Bounded: at most `maxConnections` connections (more wait in the kernel's
/// backlog), idle ones closed after a minute, request bodies of 256 KiB (uploads stream to disk up to their own
/// limit), at most 16 event streams, each let go as soon as its page closes its connection (`PeerCloseWatcher`).
///
/// `run` is called once, by the daemon's service group; it ends at graceful shutdown.
public struct WebServer: Service {
    /// Where and how the server listens.
    public struct Settings: Sendable {
        public var host: String
        public var port: Int
        public var maxConnections: Int

        public init(host: String, port: Int, maxConnections: Int = 64) {
            self.host = host
            self.port = port
            self.maxConnections = maxConnections
        }
    }

    let settings: Settings
    let api: WebAPI
    let logger: Logger
    /// Told the port once the server listens (a port of 0 picks a free one).
    let onListening: @Sendable (Int) -> Void

    public init(settings: Settings, backend: any WebBackend, access: WebAccess, events: WebEvents, logger: Logger,
                onListening: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.settings = settings
        api = WebAPI(backend: backend, access: access, events: events, assets: WebAssets())
        self.logger = logger
        self.onListening = onListening
    }

    func router() -> Router<WebContext> {
        let router = Router(context: WebContext.self)
        router.middlewares.add(WebGate(access: api.access, logger: logger))
        PlayerRoutes(api: api).register(on: router)
        QueueRoutes(api: api).register(on: router)
        LibraryRoutes(api: api).register(on: router)
        PracticeRoutes(api: api).register(on: router)
        BoxRoutes(api: api).register(on: router)
        TimerRoutes(api: api).register(on: router)
        RecordingRoutes(api: api).register(on: router)
        AssetRoutes(assets: api.assets).register(on: router)
        return router
    }

    public func run() async throws {
        let subscription = api.mpd.idle.subscribe { [events = api.events] changed in events.changed(changed) }
        defer { subscription.cancel() }
        // At graceful shutdown the event streams end first (their responses finish), and the server, a child of
        // the daemon's service group, then drains and closes on its own: no answer is cut off by cancellation. A
        // request still running after `drainTime` (a slow upload) is then cancelled, so a client cannot hold the
        // daemon's stop.
        await withTaskGroup(of: Ended.self) { group in
            group.addTask {
                await cancelWhenGracefulShutdown { await api.events.run() }
                return .events
            }
            group.addTask {
                await serve()
                return .server
            }
            group.addTask {
                try? await gracefulShutdown()
                try? await Task.sleep(for: Self.drainTime)
                return .deadline
            }
            while let ended = await group.next() {
                if ended != .events { group.cancelAll() }
            }
        }
    }

    /// Serves until graceful shutdown. When the server cannot listen — the port taken by another program, or an
    /// address the board has not been given yet at boot — the jukebox goes on without its web remote: the failure is
    /// logged once, and the server tries again — after 1 s, then twice as long each time up to `retryInterval` — until
    /// it listens (then says so).
    private func serve() async {
        var failed = false
        var wait: Duration = .seconds(1)
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            let listening = Listened()
            do {
                try await application(onListening: { port in
                    listening.value.withLock { $0 = true }
                    onListening(port)
                }).runService(gracefulShutdownSignals: [])
                return
            } catch {
                if Task.isCancelled || Task.isShuttingDownGracefully { return }
                let listened = listening.value.withLock { $0 }
                if listened || !failed {
                    logger.error("""
                        web remote: \(listened ? "stopped" : "cannot listen on \(settings.host):\(settings.port)"): \(error); \
                        the jukebox goes on without it and tries again until it can
                        """)
                }
                failed = !listened
                if listened { wait = .seconds(1) }
            }
            _ = try? await cancelWhenGracefulShutdown { [wait] in try await Task.sleep(for: wait) }
            wait = min(wait * 2, Self.retryInterval)
        }
    }

    private func application(onListening: @escaping @Sendable (Int) -> Void) -> some ApplicationProtocol {
        Application(
            router: router(),
            server: .http1(configuration: .init(additionalChannelHandlers: [PeerCloseWatcher()],
                                                idleTimeout: .seconds(60))),
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: nil,
                                 availableConnectionsDelegate: MaximumAvailableConnections(settings.maxConnections, logger: logger)),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
    }

    /// The longest the server waits before trying again to listen.
    static let retryInterval: Duration = .seconds(30)

    /// Whether one attempt's server came to listen: set on an event loop, read by `serve` after the attempt.
    private final class Listened: Sendable {
        let value = Mutex(false)
    }

    /// How long the server may drain at shutdown.
    static let drainTime: Duration = .seconds(3)

    /// Which of `run`'s tasks ended.
    private enum Ended: Sendable {
        case events, server, deadline
    }
}
