import AudioCore
import Glibc
import Synchronization

/// Plays systemd's part for the watchdog: owns the Unix datagram socket a daemon finds in `$NOTIFY_SOCKET` and
/// timestamps every `WATCHDOG=1` it receives, so the largest gap between two pings around any window can be told.
///
/// Threads: any; the receiving runs on its own thread until `close`.
final class WatchdogListener: Sendable {
    /// The socket's path, for `NOTIFY_SOCKET`.
    let path: String
    private let fd: Int32
    private let pings = Mutex<[Double]>([])
    private let messages = Mutex<[String]>([])
    private let stop = StopFlag()

    init(path: String) throws {
        self.path = path
        unlink(path)
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw MPDConnection.Failure(description: "notify socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw MPDConnection.Failure(description: "\(path): too long for a Unix socket")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else {
            close(fd)
            throw MPDConnection.Failure(description: "bind \(path): errno \(errno)")
        }
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        self.fd = fd
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// Starts receiving; returns the work to `join` after `close`.
    func start() -> BackgroundWork<Void> {
        BackgroundWork(name: "watchdog-listener") { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !stop.isRaised {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { continue }
                let now = MonotonicClock.seconds()
                let text = String(decoding: buffer[0..<n], as: UTF8.self)
                if text.split(separator: "\n").contains("WATCHDOG=1") { pings.withLock { $0.append(now) } }
                messages.withLock { $0.append(text) }
            }
        }
    }

    /// Stops the receiving loop (within 100 ms).
    func stopReceiving() { stop.raise() }

    /// Every ping's time so far.
    var pingTimes: [Double] { pings.withLock { $0 } }

    /// Whether any datagram (READY=1, STATUS=…) arrived at all.
    var heardAnything: Bool { messages.withLock { !$0.isEmpty } }

    /// Waits (at most `timeout` seconds) for a ping later than `time`; true when one came.
    func waitForPing(after time: Double, timeout: Double) -> Bool {
        let deadline = MonotonicClock.seconds() + timeout
        while MonotonicClock.seconds() < deadline {
            if let last = pings.withLock({ $0.last }), last > time { return true }
            MonotonicClock.sleep(seconds: 0.05)
        }
        return false
    }

    /// The largest gap between consecutive pings among those gaps that overlap `start...end` (a gap still open at
    /// `now` counts up to now). nil when there was no ping before `end`.
    static func largestGap(in pings: [Double], from start: Double, to end: Double, now: Double) -> Double? {
        guard let first = pings.first, first <= end else { return nil }
        var largest = 0.0
        for (earlier, later) in zip(pings, pings.dropFirst() + [now]) where later >= start && earlier <= end {
            largest = max(largest, later - earlier)
        }
        return largest
    }
}
