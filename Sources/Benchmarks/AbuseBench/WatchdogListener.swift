import AudioCore
import Glibc
import Synchronization
import TestSupport

/// Plays systemd's part for the watchdog: owns the Unix datagram socket a daemon finds in `$NOTIFY_SOCKET` and
/// timestamps every `WATCHDOG=1` it receives, so the largest gap between two pings around any window can be told.
///
/// Threads: any; the receiving runs on its own thread until `close`.
final class WatchdogListener: Sendable {
    private let socket: NotifySocket
    private let pings = Mutex<[Double]>([])
    private let messages = Mutex<[String]>([])
    private let stop = StopFlag()

    /// The socket's path, for `NOTIFY_SOCKET`.
    var path: String { socket.path }

    init(path: String) throws { socket = try NotifySocket(path: path) }

    /// Starts receiving; returns the work to `join` after `close`.
    func start() -> BackgroundWork<Void> {
        BackgroundWork(name: "watchdog-listener") { [self] in
            while !stop.isRaised {
                guard let text = socket.receive() else { continue }
                let now = MonotonicClock.seconds()
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
