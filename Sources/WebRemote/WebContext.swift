import FermataCore
import Hummingbird
import NIOCore

/// One request's context: Hummingbird's own, the connection's addresses (whether it comes from the box itself) and
/// the role the gate found for it.
///
/// A value, one per request; the request's task owns it.
struct WebContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The peer's address (nil: unknown, as after the connection closed).
    let remote: SocketAddress?
    /// The request's connection (an event stream watches it close: `PeerCloseWatcher`).
    let channel: any Channel
    /// Set by `WebGate`: who the request acts for (nil before the gate, or for the public paths).
    var role: WebRole?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remote = source.channel.remoteAddress
        channel = source.channel
    }

    /// JSON bodies are small (a control, a section, a list of at most 1,000 URIs); uploads stream past this.
    var maxUploadSize: Int { 256 * 1024 }

    /// Whether the peer is the box itself (IPv4 127.0.0.0/8 or IPv6 ::1, IPv4-mapped included).
    var isLoopback: Bool {
        guard let remote, let address = remote.ipAddress else { return false }
        return address.hasPrefix("127.") || address == "::1" || address.hasPrefix("::ffff:127.")
    }

    /// The throttle's key for the peer: its IP address.
    var peer: String { remote?.ipAddress ?? "unknown" }
}

/// A refusal the API answers as `{"error": "..."}` with its status.
struct WebFailure: Error {
    let status: HTTPResponse.Status
    let message: String

    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    static func bad(_ message: String) -> WebFailure { WebFailure(.badRequest, message) }
    static func notFound(_ message: String) -> WebFailure { WebFailure(.notFound, message) }
    static func refused(_ message: String) -> WebFailure { WebFailure(.conflict, message) }
}
