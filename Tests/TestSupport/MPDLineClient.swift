import Foundation
import Glibc

/// A minimal MPD protocol client over TCP for tests and benchmarks: send a line, read until OK/ACK.
/// Threads: one user at a time.
public final class MPDLineClient {
    public struct Ack: Error, CustomStringConvertible {
        public var line: String
        public init(line: String) { self.line = line }
        public var description: String { line }
    }

    private let fd: Int32
    private var buffer: [UInt8] = []

    public init?(port: Int) {
        guard let fd = try? TestSocket.connect(port: port) else { return nil }
        self.fd = fd
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // A failure from here on leaves `deinit` to close the descriptor (it runs: every property is set).
        guard (try? readLine())?.hasPrefix("OK MPD") == true else { return nil }
    }

    deinit { close(fd) }

    /// Sends `line` without waiting for the answer.
    public func send(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// Sends a command and returns its pairs; throws `Ack` on an error answer.
    @discardableResult
    public func command(_ line: String) throws -> [(String, String)] {
        send(line)
        return try answer()
    }

    public func answer() throws -> [(String, String)] {
        var pairs: [(String, String)] = []
        while true {
            let line = try readLine()
            if line == "OK" { return pairs }
            if line.hasPrefix("ACK") { throw Ack(line: line) }
            if let colon = line.firstIndex(of: ":") {
                pairs.append((String(line[..<colon]), String(line[line.index(colon, offsetBy: 2)...])))
            }
        }
    }

    public func readLine() throws -> String {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw Ack(line: "connection closed") }
            buffer += chunk[..<n]
        }
    }
}

extension Array where Element == (String, String) {
    public func value(_ key: String) -> String? { first { $0.0 == key }?.1 }
    public func values(_ key: String) -> [String] { filter { $0.0 == key }.map(\.1) }
}
