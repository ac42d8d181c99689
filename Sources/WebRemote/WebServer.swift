import FermataCore
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import MPDProtocol
import NIOCore
import ServiceLifecycle

/// The web remote as a service: fermatad's own HTTP server (Hummingbird 2, on the event loops fermatad already runs)
/// for the page and its JSON API under `/api/`. It listens where the settings say — by default on the loopback address,
/// as the MPD port does; opening it to the network is `web.listen = "0.0.0.0:6680"`, and then every request from
/// elsewhere needs a session (`WebGate`). Bounded: at most `maxConnections` connections (more wait in the kernel's
/// backlog), idle ones closed after a minute, request bodies of 256 KiB (uploads stream to disk up to their own
/// limit), at most 16 event streams.
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
        AssetRoutes(assets: api.assets).register(on: router)
        return router
    }

    public func run() async throws {
        let subscription = api.mpd.idle.subscribe { [events = api.events] changed in events.changed(changed) }
        defer { subscription.cancel() }
        let onListening = onListening
        let app = Application(
            router: router(),
            server: .http1(configuration: .init(idleTimeout: .seconds(60))),
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: nil,
                                 availableConnectionsDelegate: MaximumAvailableConnections(settings.maxConnections, logger: logger)),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await api.events.run() }
            group.addTask { try await app.runService(gracefulShutdownSignals: []) }
            try? await gracefulShutdown()
            group.cancelAll()
        }
    }
}
