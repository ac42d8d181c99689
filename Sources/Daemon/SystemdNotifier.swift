import Foundation
import Glibc

/// Talks to systemd's service manager without libsystemd: a datagram to the AF_UNIX socket named in `$NOTIFY_SOCKET`
/// (a leading `@` is the abstract namespace). Does nothing when the variable is absent (not started by systemd).
/// Threads: any; each call sends one datagram.
public struct SystemdNotifier: Sendable {
    public let socketPath: String?
    /// A third of `$WATCHDOG_USEC`, when the unit has a watchdog: pings then come at most a third of the limit apart
    /// even when one is a little late (at half, a ping due exactly at the half-way mark leaves no margin).
    public let watchdogInterval: Duration?

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        // Range-checked: a value from the environment must not overflow the pinger's nanoseconds (1 µs – 1 day).
        watchdogInterval = environment["WATCHDOG_USEC"].flatMap(Int.init).flatMap {
            (1...86_400_000_000).contains($0) ? .microseconds($0 / 3) : nil
        }
    }

    public var isActive: Bool { socketPath != nil }

    public func ready(status: String) { send("READY=1\nSTATUS=\(status)") }
    public func status(_ text: String) { send("STATUS=\(text)") }
    public func watchdog() { send("WATCHDOG=1") }
    public func stopping() { send("STOPPING=1") }

    /// Sends `message`; returns false when there is no socket or the send failed.
    @discardableResult
    public func send(_ message: String) -> Bool {
        guard let socketPath else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(socketPath.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let sent = message.withCString { text in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, text, strlen(text), 0, $0, length) }
            }
        }
        return sent >= 0
    }
}
