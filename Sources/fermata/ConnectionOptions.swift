import ArgumentParser
import FermataConfig
import Foundation

/// How the CLI reaches fermatad: its Unix socket by default, TCP with `--host`.
struct ConnectionOptions: ParsableArguments {
    @Option(help: "fermatad's Unix socket (default $FERMATA_SOCKET, your own fermatad's, or /run/fermata/mpd.sock).")
    var socket: String?
    @Option(help: "Connect over TCP to this host instead of the socket.")
    var host: String?
    @Option(help: "TCP port with --host.")
    var port = 6600
    @Option(help: "Password, when fermatad asks for one.")
    var password: String?

    func connect() throws -> ControlConnection {
        let connection = try ControlConnection(socketPath: Self.socketPath(socket), host: host, port: port)
        if let password { _ = try connection.command("password " + ControlConnection.quote(password)) }
        return connection
    }

    /// The Unix socket to use: `explicit`, else $FERMATA_SOCKET, else the user's own fermatad's, else the system's.
    static func socketPath(_ explicit: String?) -> String {
        let environment = ProcessInfo.processInfo.environment
        let own = UserPlaces.socketPath(environment).flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }
        return explicit ?? environment["FERMATA_SOCKET"] ?? own ?? "/run/fermata/mpd.sock"
    }
}

/// Exit statuses scripts can rely on.
enum ExitStatus {
    /// fermatad refused the command (it answered ACK).
    static let refused: Int32 = 1
    /// fermatad cannot be reached.
    static let unreachable: Int32 = 3
    /// `doctor` found problems.
    static let problems: Int32 = 4
}

/// Runs `body` with a connection; prints `fermata: <reason>` on failure and exits with the documented status.
func withConnection(_ options: ConnectionOptions, _ body: (ControlConnection) throws -> Void) throws {
    try withConnection({ try options.connect() }, body)
}

/// `withConnection` for a command that makes its own connection (a Unix socket only, say).
func withConnection(_ connect: () throws -> ControlConnection, _ body: (ControlConnection) throws -> Void) throws {
    do {
        try body(try connect())
    } catch let failure as ControlConnection.Failure {
        FileHandle.standardError.write(Data("fermata: \(failure)\n".utf8))
        switch failure {
        case .cannotConnect: throw ExitCode(ExitStatus.unreachable)
        case .ack, .protocolError: throw ExitCode(ExitStatus.refused)
        }
    }
}

/// Turns protocol pairs into a dictionary (first value wins).
func dictionary(_ pairs: [(key: String, value: String)]) -> [String: String] {
    var out: [String: String] = [:]
    for (key, value) in pairs where out[key] == nil { out[key] = value }
    return out
}

/// `m:ss` or `h:mm:ss`, with milliseconds when asked.
func clock(_ seconds: Double, millis: Bool = false) -> String {
    let total = max(0, seconds)
    let whole = Int(total)
    let h = whole / 3600, m = whole / 60 % 60, s = whole % 60
    var text = h > 0 ? String(format: "%d:%02d:%02d", h, m, s) : String(format: "%d:%02d", m, s)
    if millis { text += String(format: ".%03d", Int((total - Double(whole)) * 1000)) }
    return text
}
