import FermataCore
import Logging
import MPDProtocol
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The MPD protocol server: listens on TCP and/or a Unix socket and gives each client a channel pipeline
/// (timeout → line decoder → `MPDClientHandler`) over one shared `CommandExecutor`. Each listener has its own
/// connection limit; one `PasswordThrottle` delays wrong passwords across all connections.
///
/// A `Service`: `run()` binds, serves until cancelled or told to shut down gracefully, then closes the listeners and
/// every client and removes the socket file. Create it anywhere; call `run()` once. `listeningAddresses()` may be
/// awaited from any task (tests use it to learn an ephemeral port).
public final class MPDServer: Service, Sendable {
    /// The server's lifecycle, with the waiters for the bound addresses.
    private enum Lifecycle {
        case created(waiters: [CheckedContinuation<[SocketAddress], any Error>])
        case listening([SocketAddress])
        case stopped(failure: (any Error)?)
    }

    /// Why `run` could not start.
    public struct StartupError: Error, CustomStringConvertible {
        public var description: String

        init(description: String) { self.description = description }

        /// "cannot listen on 127.0.0.1:6600 (mpd.listen): Address already in use", not NIO's
        /// "bind(descriptor:ptr:bytes:): Address already in use) (errno: 98)".
        init(listening place: String, _ error: any Error) {
            let reason = (error as? IOError).map { String(cString: strerror($0.errnoCode)) } ?? "\(error)"
            description = "cannot listen \(place): \(reason)"
        }
    }

    public let configuration: MPDServerConfiguration
    private let executor: CommandExecutor
    private let group: any EventLoopGroup
    private let logger: Logger
    private let tcpRegistry: ConnectionRegistry
    private let unixRegistry: ConnectionRegistry
    private let throttle: PasswordThrottle
    /// Client-to-client messages (`subscribe`, `sendmessage`, …), shared by both listeners' connections.
    private let messages: MessageBoard
    private let lifecycle = Mutex(Lifecycle.created(waiters: []))

    public init(
        configuration: MPDServerConfiguration, backend: any MPDBackend,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        throttle: PasswordThrottle? = nil, logger: Logger = Logger(label: "fermata.mpd")
    ) {
        self.configuration = configuration
        executor = CommandExecutor(backend: backend, config: configuration.session)
        group = eventLoopGroup
        self.logger = logger
        tcpRegistry = ConnectionRegistry(limit: configuration.maxConnections, name: "TCP")
        unixRegistry = ConnectionRegistry(limit: configuration.maxUnixSocketConnections, name: "Unix socket")
        // The daemon passes the one it shares with the web remote's login; alone, the server has its own.
        self.throttle = throttle ?? PasswordThrottle(first: .nanoseconds(configuration.passwordFailureDelay.nanoseconds),
                                                     cap: .nanoseconds(configuration.maxPasswordFailureDelay.nanoseconds))
        messages = MessageBoard(idle: backend.idle)
    }

    /// How many clients are connected now (both listeners).
    public var connectionCount: Int { tcpRegistry.count + unixRegistry.count }

    /// The bound addresses, once `run` has bound them; throws if `run` failed or the server stopped.
    public func listeningAddresses() async throws -> [SocketAddress] {
        try await withCheckedThrowingContinuation { continuation in
            lifecycle.withLock { state in
                switch state {
                case var .created(waiters):
                    waiters.append(continuation)
                    state = .created(waiters: waiters)
                case let .listening(addresses): continuation.resume(returning: addresses)
                case let .stopped(failure):
                    continuation.resume(throwing: failure ?? StartupError(description: "stopped"))
                }
            }
        }
    }

    public func run() async throws {
        let listeners: [any Channel]
        do {
            listeners = try await bindListeners()
        } catch {
            finish(failure: error)
            throw error
        }
        let addresses = listeners.compactMap(\.localAddress)
        logger.info("MPD server listening on \(addresses.map(\.description).joined(separator: ", "))")
        publish(.listening(addresses))
        await withTaskCancellationOrGracefulShutdownHandler {
            for listener in listeners { try? await listener.closeFuture.get() }
        } onCancelOrGracefulShutdown: {
            for listener in listeners { listener.close(promise: nil) }
        }
        await tcpRegistry.closeAll()
        await unixRegistry.closeAll()
        if let path = configuration.unixSocketPath { unlink(path) }
        finish(failure: nil)
        logger.info("MPD server stopped")
    }

    private func bindListeners() async throws -> [any Channel] {
        var listeners: [any Channel] = []
        do {
            if let tcp = configuration.tcp {
                let bootstrap = makeBootstrap(registry: tcpRegistry)
                do {
                    listeners.append(try await bootstrap.bind(host: tcp.host, port: tcp.port).get())
                } catch {
                    throw StartupError(listening: "on \(tcp.host):\(tcp.port) (mpd.listen)", error)
                }
            }
            if let path = configuration.unixSocketPath {
                let bootstrap = makeBootstrap(registry: unixRegistry)
                do {
                    listeners.append(
                        try await bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).get())
                } catch {
                    throw StartupError(listening: "on the socket \(path) (mpd.socket)", error)
                }
                guard chmod(path, mode_t(configuration.unixSocketMode)) == 0 else {
                    throw StartupError(description: "chmod \(path) failed: errno \(errno)")
                }
            }
        } catch {
            for listener in listeners { try? await listener.close() }
            throw error
        }
        guard !listeners.isEmpty else {
            throw StartupError(description: "no TCP address and no Unix socket configured")
        }
        return listeners
    }

    private func makeBootstrap(registry: ConnectionRegistry) -> ServerBootstrap {
        let (executor, throttle, configuration, logger) = (executor, throttle, configuration, logger)
        let messages = messages
        return ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelOption(.maxMessagesPerRead, value: 4)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handlers: [any ChannelHandler]
                    if registry.admit(channel) {
                        handlers = [
                            IdleStateHandler(readTimeout: configuration.connectionTimeout),
                            ByteToMessageHandler(MPDLineDecoder(maxLength: configuration.maxLineLength)),
                            MPDClientHandler(
                                executor: executor, config: configuration, throttle: throttle, messages: messages,
                                logger: logger),
                        ]
                    } else {
                        logger.warning(
                            "MPD connection refused: \(registry.limit) \(registry.name) clients already connected")
                        handlers = [RefusingHandler()]
                    }
                    try channel.pipeline.syncOperations.addHandlers(handlers)
                }
            }
    }

    private func publish(_ next: Lifecycle) {
        let waiters = lifecycle.withLock { state in
            defer { state = next }
            guard case let .created(waiters) = state else { return [CheckedContinuation<[SocketAddress], any Error>]() }
            return waiters
        }
        for waiter in waiters {
            switch next {
            case let .listening(addresses): waiter.resume(returning: addresses)
            case let .stopped(failure): waiter.resume(throwing: failure ?? StartupError(description: "stopped"))
            case .created: break
            }
        }
    }

    private func finish(failure: (any Error)?) { publish(.stopped(failure: failure)) }
}
