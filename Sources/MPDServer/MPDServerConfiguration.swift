import MPDProtocol
import NIOCore

/// Where the MPD server listens and the limits it enforces per client.
///
/// A plain value, fixed when the server is created.
public struct MPDServerConfiguration: Sendable {
    /// A TCP listening address.
    public struct TCPEndpoint: Sendable, Hashable {
        public var host: String
        /// 0 picks an ephemeral port (tests); read it back with `MPDServer.listeningAddresses()`.
        public var port: Int

        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }
    }

    /// TCP listener; default localhost only, MPD's port. nil: no TCP.
    public var tcp: TCPEndpoint?
    /// Unix socket path; a stale socket file there is replaced (never a regular file). nil: no Unix socket.
    public var unixSocketPath: String?
    /// Permission bits of the Unix socket file (owner and group may connect).
    public var unixSocketMode: UInt32
    /// More simultaneous TCP clients are refused with one ACK line (MPD's `max_connections`, default 100).
    public var maxConnections: Int
    /// More simultaneous Unix socket clients are refused likewise. The Unix socket (the CLI's and local tools'
    /// channel) has its own budget, so TCP clients, however many, can never lock it out.
    public var maxUnixSocketConnections: Int
    /// The longest line a client may send; longer lines get an ACK and the connection is closed.
    public var maxLineLength: Int
    /// Output not yet taken by a client beyond this closes it (MPD's `max_output_buffer_size`); a command (list) whose
    /// output would pass it stops there and the client is closed, so no client's output is held beyond it.
    public var maxPendingOutputBytes: Int
    /// A client silent for this long is dropped, unless it waits in `idle` (MPD's `connection_timeout`).
    public var connectionTimeout: TimeAmount
    /// The wait before answering a client's first wrong password; it doubles with each further consecutive failure
    /// from the same peer (IP address, or the Unix socket), up to `maxPasswordFailureDelay`.
    public var passwordFailureDelay: TimeAmount
    public var maxPasswordFailureDelay: TimeAmount
    /// Passwords, default permissions and protocol limits.
    public var session: SessionConfig

    public init(
        tcp: TCPEndpoint? = TCPEndpoint(host: "127.0.0.1", port: 6600), unixSocketPath: String? = nil,
        unixSocketMode: UInt32 = 0o660, maxConnections: Int = 100, maxUnixSocketConnections: Int = 32,
        maxLineLength: Int = 8192, maxPendingOutputBytes: Int = 8 * 1024 * 1024,
        connectionTimeout: TimeAmount = .seconds(60), passwordFailureDelay: TimeAmount = .milliseconds(100),
        maxPasswordFailureDelay: TimeAmount = .seconds(5), session: SessionConfig = SessionConfig()
    ) {
        self.tcp = tcp
        self.unixSocketPath = unixSocketPath
        self.unixSocketMode = unixSocketMode
        self.maxConnections = maxConnections
        self.maxUnixSocketConnections = maxUnixSocketConnections
        self.passwordFailureDelay = passwordFailureDelay
        self.maxPasswordFailureDelay = maxPasswordFailureDelay
        self.maxLineLength = maxLineLength
        self.maxPendingOutputBytes = maxPendingOutputBytes
        self.connectionTimeout = connectionTimeout
        self.session = session
    }
}
