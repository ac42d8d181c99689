import Foundation
import Glibc

/// A blocking MPD-protocol client for the CLI: one connection (Unix socket or TCP), one command at a time.
/// Threads: the CLI's main task only.
final class ControlConnection {
    enum Failure: Error, CustomStringConvertible {
        /// The daemon is not there (exit status 3).
        case cannotConnect(String)
        /// The daemon answered `ACK [code@index] {command} message` (exit status 1).
        case ack(code: Int, command: String, message: String)
        case protocolError(String)

        var description: String {
            switch self {
            case let .cannotConnect(why): "cannot reach fermatad: \(why)"
            case let .ack(_, command, message): command.isEmpty ? message : "\(command): \(message)"
            case let .protocolError(why): "unexpected answer from fermatad: \(why)"
            }
        }
    }

    private let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to `socketPath`, or to `host:port` when `host` is given.
    init(socketPath: String, host: String?, port: Int) throws {
        if let host {
            fd = try Self.connectTCP(host: host, port: port)
        } else {
            fd = try Self.connectUnix(path: socketPath)
        }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let greeting = try readLine()
        guard greeting.hasPrefix("OK MPD ") else { throw Failure.protocolError("greeting \(greeting)") }
    }

    deinit { close(fd) }

    /// Sends one command line and returns its `key: value` pairs in order.
    func command(_ line: String) throws -> [(key: String, value: String)] {
        let bytes = Array((line + "\n").utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw Failure.cannotConnect("the connection closed") }
            sent += n
        }
        var pairs: [(String, String)] = []
        while true {
            let reply = try readLine()
            if reply == "OK" { return pairs }
            if reply.hasPrefix("ACK ") { throw Self.parseAck(reply) }
            guard let colon = reply.firstIndex(of: ":") else { throw Failure.protocolError(reply) }
            let value = reply[reply.index(after: colon)...].drop { $0 == " " }
            pairs.append((String(reply[..<colon]), String(value)))
        }
    }

    /// Quotes an argument for the protocol.
    static func quote(_ argument: String) -> String {
        "\"" + argument.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    static func parseAck(_ line: String) -> Failure {
        // ACK [50@0] {add} No such file
        let scanner = Scanner(string: line)
        _ = scanner.scanString("ACK [")
        let code = scanner.scanInt() ?? 0
        _ = scanner.scanUpToString("{")
        _ = scanner.scanString("{")
        let command = scanner.scanUpToString("}") ?? ""
        _ = scanner.scanString("}")
        let message = String(line[scanner.currentIndex...]).trimmingCharacters(in: .whitespaces)
        return .ack(code: code, command: command, message: message)
    }

    private func readLine() throws -> String {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw Failure.cannotConnect(n == 0 ? "the connection closed" : String(cString: strerror(errno))) }
            buffer += chunk[..<n]
        }
    }

    private static func connectUnix(path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw Failure.cannotConnect("path too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let why = String(cString: strerror(errno))
            close(fd)
            throw Failure.cannotConnect("\(path): \(why) (is fermatad running? `systemctl status fermata`)")
        }
        return fd
    }

    private static func connectTCP(host: String, port: Int) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            throw Failure.cannotConnect("cannot resolve \(host)")
        }
        defer { freeaddrinfo(list) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            if fd >= 0 && connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return fd }
            if fd >= 0 { close(fd) }
            entry = info.pointee.ai_next
        }
        throw Failure.cannotConnect("\(host):\(port): \(String(cString: strerror(errno))) (is fermatad running?)")
    }
}
