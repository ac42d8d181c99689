import Foundation
import TestSupport

/// A blocking MPD-protocol client over TCP, used to read the daemon's state back after a client program changed it
/// (and to send the commands `mpc` 0.34 has no verb for).
///
/// Not thread-safe: one instance is used by one thread at a time (the harness runs it inside `onThread`).
final class MPDLink: @unchecked Sendable {
    /// Why a connection, a read or a harness step failed.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// One response: its `key: value` lines in order, and the `ACK …` line when the command was refused.
    struct Reply: Sendable, CustomStringConvertible {
        var pairs: [(key: String, value: String)]
        var ack: String?

        /// The first value of `key`.
        subscript(_ key: String) -> String? { pairs.first { $0.key == key }?.value }
        /// Every value of `key`, in order.
        func all(_ key: String) -> [String] { pairs.filter { $0.key == key }.map(\.value) }
        var isOK: Bool { ack == nil }
        /// The response as the server sent it (without the final `OK`).
        var description: String {
            pairs.map { "\($0.key): \($0.value)\n" }.joined() + (ack.map { $0 + "\n" } ?? "")
        }
        /// The `key: value` lines of the given keys only, in order (to compare with an exact expectation).
        func lines(_ keys: Set<String>) -> String {
            pairs.filter { keys.contains($0.key) }.map { "\($0.key): \($0.value)\n" }.joined()
        }
    }

    private let fd: Int32
    private var buffer: [UInt8] = []
    /// The server's greeting line (`OK MPD x.y.z`).
    private(set) var greeting = ""

    /// Connects to 127.0.0.1:`port` and reads the greeting.
    init(port: Int, timeout: Int = 20) throws {
        do { fd = try TestSocket.connect(port: port) } catch { throw Failure(description: error.description) }
        var value = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        greeting = try readLine() ?? ""
        guard greeting.hasPrefix("OK MPD ") else { throw Failure(description: "greeting \(greeting.debugDescription)") }
    }

    deinit { Glibc.close(fd) }

    /// Sends raw protocol text (lines must end in `\n`).
    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { throw Failure(description: "send: errno \(errno)") }
            offset += sent
        }
    }

    /// Reads one response, up to and including `OK` or `ACK …` (`list_OK` lines are kept as pairs named `list_OK`).
    func readReply() throws -> Reply {
        var reply = Reply(pairs: [], ack: nil)
        while let line = try readLine() {
            if line == "OK" { return reply }
            if line.hasPrefix("ACK ") {
                reply.ack = line
                return reply
            }
            if line == "list_OK" {
                reply.pairs.append((key: "list_OK", value: ""))
                continue
            }
            guard let colon = line.range(of: ": ") else {
                throw Failure(description: "bad line \(line.debugDescription)")
            }
            reply.pairs.append((key: String(line[..<colon.lowerBound]), value: String(line[colon.upperBound...])))
        }
        throw Failure(description: "connection closed after \(reply)")
    }

    /// Sends one command line and reads its response.
    func command(_ line: String) throws -> Reply {
        try send(line + "\n")
        return try readReply()
    }

    /// The next line without its newline, or nil at the end of the stream.
    private func readLine() throws -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer += chunk[..<count]
            } else if count == 0 || errno == ECONNRESET {
                return nil
            } else {
                throw Failure(description: errno == EAGAIN ? "read timed out" : "recv: errno \(errno)")
            }
        }
    }

    /// Whether something accepts connections on 127.0.0.1:`port` and greets like MPD.
    static func answers(port: Int) -> Bool { (try? MPDLink(port: port, timeout: 5)) != nil }

    /// A TCP port for a daemon to listen on (`TestSocket.freePort`).
    static func freePort() throws -> Int { TestSocket.freePort() }
}

