import Foundation
import Glibc

/// systemd's end of `$NOTIFY_SOCKET`, for a daemon under test or benchmark: a bound Unix datagram socket whose
/// messages (`READY=1`, `WATCHDOG=1`, `STATUS=…`) are received with a 100 ms timeout. Removed when released.
///
/// Sendable: the descriptor is fixed at `init` and closed in `deinit`; receive from one thread at a time.
public final class NotifySocket: Sendable {
    /// The socket's path, for `NOTIFY_SOCKET`.
    public let path: String
    private let fd: Int32

    public init(path: String) throws(TestSocket.Failure) {
        self.path = path
        unlink(path)
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestSocket.Failure(description: "notify socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw TestSocket.Failure(description: "\(path): too long for a Unix socket")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else {
            close(fd)
            throw TestSocket.Failure(description: "bind \(path): errno \(errno)")
        }
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        self.fd = fd
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// The next message's text, or nil when none came within 100 ms. Blocking.
    public func receive() -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
    }

    /// Receives messages until one has the line `line` (true) or `seconds` pass (false). Blocking.
    public func waitFor(_ line: String, within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let message = receive(), message.split(separator: "\n").contains(Substring(line)) { return true }
        }
        return false
    }
}
