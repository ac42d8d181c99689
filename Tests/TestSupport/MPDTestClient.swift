import Foundation
import Glibc
import Synchronization

/// One answer from an MPD server: its `key: value` lines in order (a `list_OK` line is kept as a pair named
/// `list_OK`), and the `ACK …` line when the command was refused.
public struct MPDReply: Sendable, CustomStringConvertible {
    public var pairs: [(key: String, value: String)]
    public var ack: String?

    public init(pairs: [(key: String, value: String)] = [], ack: String? = nil) {
        self.pairs = pairs
        self.ack = ack
    }

    /// The first value of `key`.
    public subscript(_ key: String) -> String? { pairs.first { $0.key == key }?.value }
    /// Every value of `key`, in order.
    public func all(_ key: String) -> [String] { pairs.filter { $0.key == key }.map(\.value) }
    public var isOK: Bool { ack == nil }
    /// The answer as the server sent it, without the final `OK`.
    public var description: String {
        pairs.map { "\($0.key): \($0.value)\n" }.joined() + (ack.map { $0 + "\n" } ?? "")
    }
    /// The `key: value` lines of the given keys only, in order (to compare with an exact expectation).
    public func lines(_ keys: Set<String>) -> String {
        pairs.filter { keys.contains($0.key) }.map { "\($0.key): \($0.value)\n" }.joined()
    }
}

/// How an `MPDTestClient` reaches a server: bytes out, bytes in, blocking. `MPDSocketTransport` is a real TCP or
/// Unix connection; MPDTestSupport's `MPDSessionTransport` runs the protocol session in the test's own process.
///
/// Implementations are `Sendable`; a client uses its transport from one thread at a time.
public protocol MPDTestTransport: Sendable {
    /// Sends all of `bytes`.
    func write(_ bytes: [UInt8]) throws(MPDTestClient.Failure)
    /// The next bytes from the server, waiting at most the transport's timeout (then it throws "read timed out");
    /// empty once the server has closed the connection. The timeout bounds a stall (no new byte for that long), not
    /// the time an answer takes in all: each byte that arrives starts it again.
    func read() throws(MPDTestClient.Failure) -> [UInt8]
    /// How long `read` waits, in seconds.
    func setTimeout(_ seconds: Double)
}

/// A TCP connection to 127.0.0.1 or a Unix-socket connection, with a receive timeout. Closed when released.
///
/// Sendable: its only state is the descriptor, fixed at `init`; the kernel orders calls on it.
public final class MPDSocketTransport: MPDTestTransport {
    public let fd: Int32

    /// Connects to 127.0.0.1:`port`; `receiveBuffer` shrinks SO_RCVBUF (to make the server's output back up).
    public init(port: Int, receiveBuffer: Int32? = nil, timeout: Double) throws(MPDTestClient.Failure) {
        do { fd = try TestSocket.connect(port: port, receiveBuffer: receiveBuffer) } catch {
            throw MPDTestClient.Failure(description: error.description)
        }
        setTimeout(timeout)
    }

    /// Connects to the Unix socket at `unixPath`.
    public init(unixPath: String, timeout: Double) throws(MPDTestClient.Failure) {
        do { fd = try TestSocket.connect(unixPath: unixPath) } catch {
            throw MPDTestClient.Failure(description: error.description)
        }
        setTimeout(timeout)
    }

    deinit { Glibc.close(fd) }

    public func setTimeout(_ seconds: Double) {
        let clamped = seconds.isFinite ? min(max(seconds, 0.001), 86_400) : 86_400
        let whole = clamped.rounded(.down)
        var value = timeval(tv_sec: Int(whole), tv_usec: Int((clamped - whole) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    public func write(_ bytes: [UInt8]) throws(MPDTestClient.Failure) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { throw MPDTestClient.Failure(description: "send: errno \(errno)") }
            offset += sent
        }
    }

    public func read() throws(MPDTestClient.Failure) -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 { return Array(chunk[..<count]) }
        if count == 0 || errno == ECONNRESET { return [] }
        throw MPDTestClient.Failure(description: errno == EAGAIN ? "read timed out" : "recv: errno \(errno)")
    }
}

/// The MPD client of the tests and benchmarks, blocking, over any `MPDTestTransport`: a real socket to a server or a
/// daemon (`init(port:)`, `init(unixPath:)`), or the protocol session in-process (MPDTestSupport's
/// `MPDSessionTransport`), so one conversation can be held both ways. Structured (`command`, `ok`: an `MPDReply`)
/// and raw (`send`, `readLine`, `exchange`: text or bytes as the server wrote them) for the tests that drive the
/// server byte by byte.
///
/// Sendable (the read buffer is in a `Mutex`), but a conversation is one thread's: calls block, so make them off the
/// cooperative pool (`onThread`).
public final class MPDTestClient: Sendable {
    /// Why a connection, a read or a refused command failed.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    public let transport: any MPDTestTransport
    /// The server's greeting line (`OK MPD x.y.z`); empty for a raw connection, which leaves it unread.
    public let greeting: String
    private let pending = Mutex<[UInt8]>([])

    /// A client over `transport`; reads and checks the greeting unless `readingGreeting` is false.
    public init(transport: any MPDTestTransport, readingGreeting: Bool = true) throws {
        self.transport = transport
        guard readingGreeting else {
            greeting = ""
            return
        }
        let first = try pending.withLock { buffer throws in try Self.line(from: &buffer, transport) }
        let line = first.map { String(decoding: $0, as: UTF8.self) } ?? ""
        guard line.hasPrefix("OK MPD ") else { throw Failure(description: "greeting \(line.debugDescription)") }
        greeting = line
    }

    /// Connects to 127.0.0.1:`port` and reads the greeting. `timeout`: how long a read may go without a byte (by
    /// default `Patience.stallSeconds`, a hang detector: the 10 s and 20 s the clients used to allow were within reach
    /// of the stalls a loaded machine puts on an answer, above all from a server in the test process itself).
    public convenience init(port: Int, timeout: Double = Patience.stallSeconds, receiveBuffer: Int32? = nil) throws {
        try self.init(transport: MPDSocketTransport(port: port, receiveBuffer: receiveBuffer, timeout: timeout))
    }

    /// Connects to the Unix socket at `unixPath` and reads the greeting (`timeout` as for `init(port:)`).
    public convenience init(unixPath: String, timeout: Double = Patience.stallSeconds) throws {
        try self.init(transport: MPDSocketTransport(unixPath: unixPath, timeout: timeout))
    }

    /// A connection whose greeting is left for the test to read (`readLine`); `timeout` as for `init(port:)`.
    public static func raw(port: Int, receiveBuffer: Int32? = nil,
                           timeout: Double = Patience.stallSeconds) throws -> MPDTestClient {
        try MPDTestClient(transport: MPDSocketTransport(port: port, receiveBuffer: receiveBuffer, timeout: timeout),
                          readingGreeting: false)
    }

    /// A Unix-socket connection whose greeting is left for the test to read; `timeout` as for `init(port:)`.
    public static func raw(unixPath: String, timeout: Double = Patience.stallSeconds) throws -> MPDTestClient {
        try MPDTestClient(transport: MPDSocketTransport(unixPath: unixPath, timeout: timeout), readingGreeting: false)
    }

    /// Whether something accepts connections on 127.0.0.1:`port` and greets like MPD.
    public static func answers(port: Int) -> Bool { (try? MPDTestClient(port: port, timeout: 5)) != nil }

    public func setTimeout(_ seconds: Double) { transport.setTimeout(seconds) }

    // MARK: sending

    /// Sends raw protocol text (lines must end in `\n`).
    public func send(_ text: String) throws { try transport.write(Array(text.utf8)) }

    public func send(bytes: [UInt8]) throws { try transport.write(bytes) }

    /// Sends one line without waiting for its answer (read it later with `readReply` or `readOK`).
    public func sendLine(_ line: String) throws { try send(line + "\n") }

    // MARK: structured

    /// Sends one command line and reads its answer (an ACK is in the reply, not thrown).
    public func command(_ line: String) throws -> MPDReply {
        try send(line + "\n")
        return try readReply()
    }

    /// Sends one command line and reads its answer; throws `Failure` with the ACK line when it was refused.
    @discardableResult
    public func ok(_ line: String) throws -> MPDReply {
        try sendLine(line)
        return try readOK()
    }

    /// Reads one answer; throws `Failure` with the ACK line when it is a refusal.
    @discardableResult
    public func readOK() throws -> MPDReply {
        let reply = try readReply()
        if let ack = reply.ack { throw Failure(description: ack) }
        return reply
    }

    /// Reads one answer, up to and including `OK` or `ACK …`.
    public func readReply() throws -> MPDReply {
        var reply = MPDReply()
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
            guard let colon = line.range(of: ": ") else { throw Failure(description: "bad line \(line.debugDescription)") }
            reply.pairs.append((key: String(line[..<colon.lowerBound]), value: String(line[colon.upperBound...])))
        }
        throw Failure(description: "connection closed after \(reply)")
    }

    // MARK: raw

    /// The next line without its newline, or nil once the server closed the connection.
    public func readLine() throws -> String? {
        try readLineBytes().map { String(decoding: $0, as: UTF8.self) }
    }

    /// The next line's bytes without the newline, or nil once the server closed the connection.
    public func readLineBytes() throws -> [UInt8]? {
        try pending.withLock { buffer throws in try Self.line(from: &buffer, transport) }
    }

    /// Lines up to and including the final `OK` or `ACK …` line, as the server wrote them (each with its newline).
    public func readResponseBytes() throws -> [UInt8] {
        var bytes: [UInt8] = []
        while let line = try readLineBytes() {
            bytes += line + [0x0A]
            if line == Array("OK".utf8) || line.starts(with: Array("ACK ".utf8)) { return bytes }
        }
        throw Failure(description: "connection closed after \(String(decoding: bytes, as: UTF8.self).debugDescription)")
    }

    /// `readResponseBytes` as text.
    public func readResponse() throws -> String { String(decoding: try readResponseBytes(), as: UTF8.self) }

    /// Sends one line and returns the answer as the server wrote it.
    public func exchange(_ line: String) throws -> String {
        try send(line + "\n")
        return try readResponse()
    }

    /// Sends one line given as bytes (the newline is added) and returns the answer's bytes.
    public func exchange(bytes line: [UInt8]) throws -> [UInt8] {
        try send(bytes: line + [0x0A])
        return try readResponseBytes()
    }

    /// Reads until the server closes; returns every byte not read yet.
    public func readUntilClosed() throws -> [UInt8] {
        try pending.withLock { buffer throws in
            while true {
                let more = try transport.read()
                if more.isEmpty { break }
                buffer += more
            }
            defer { buffer = [] }
            return buffer
        }
    }

    /// Takes one line out of `buffer`, reading more from `transport` as needed; nil at the end of the stream.
    private static func line(from buffer: inout [UInt8], _ transport: any MPDTestTransport) throws -> [UInt8]? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return line
            }
            let more = try transport.read()
            if more.isEmpty { return nil }
            buffer += more
        }
    }
}
