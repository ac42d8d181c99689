import Foundation
import TestSupport

/// A blocking MPD client over a raw TCP or Unix socket, for driving the server byte by byte.
///
/// Not thread-safe: use one instance from one thread at a time (tests run it inside `onThread`).
final class RawClient: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to 127.0.0.1:`port`; `receiveBuffer` shrinks SO_RCVBUF (to make the server's output back up).
    init(port: Int, receiveBuffer: Int32? = nil, timeout: Double = 10) throws {
        do { fd = try TestSocket.connect(port: port, receiveBuffer: receiveBuffer) } catch {
            throw Failure(description: error.description)
        }
        setTimeout(timeout)
    }

    /// Connects to a Unix socket.
    init(unixPath: String, timeout: Double = 10) throws {
        do { fd = try TestSocket.connect(unixPath: unixPath) } catch { throw Failure(description: error.description) }
        setTimeout(timeout)
    }

    deinit { Glibc.close(fd) }

    func setTimeout(_ seconds: Double) {
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ text: String) throws { try send(bytes: Array(text.utf8)) }

    func send(bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { throw Failure(description: "send: \(errno)") }
            offset += sent
        }
    }

    /// Reads more bytes; false at end of stream (or reset).
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            buffer += chunk[..<count]
            return true
        }
        if count == 0 || errno == ECONNRESET { return false }
        throw Failure(description: errno == EAGAIN ? "read timed out" : "recv: \(errno)")
    }

    /// The next line without its newline, or nil at end of stream.
    func readLine() throws -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            guard try fill() else { return nil }
        }
    }

    /// Lines up to and including the final `OK` or `ACK …` line, joined with newlines (with a final newline).
    func readResponse() throws -> String {
        var text = ""
        while let line = try readLine() {
            text += line + "\n"
            if line == "OK" || line.hasPrefix("ACK ") { return text }
        }
        throw Failure(description: "connection closed after \(text.debugDescription)")
    }

    /// Sends one command and reads its answer.
    func command(_ text: String) throws -> String {
        try send(text + "\n")
        return try readResponse()
    }

    /// Reads until the server closes; returns the bytes received (buffered ones included).
    func readUntilClosed() throws -> [UInt8] {
        while try fill() {}
        defer { buffer = [] }
        return buffer
    }
}

/// The resident set size of this process in KiB (VmRSS), or 0 if unreadable.
func residentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}
