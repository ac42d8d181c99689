import AudioCore
import Foundation
import Synchronization

/// The bystander of every scenario: a second client that sends `status` in a loop (2 ms apart) on its own connection
/// while the scenario runs, and keeps the worst round trip it saw. A player's remote control does this; a daemon
/// busy with another client must still answer it at once.
///
/// Threads: `init` and `finish` from the scenario's thread; the loop runs on its own.
struct StatusProbe {
    /// What the bystander saw.
    struct Seen: Sendable {
        /// The slowest `status` round trip, in seconds (nil: none was answered).
        var worst: Double?
        var answered: Int
        /// Why the loop stopped early (the connection dropped, an ACK, a 60 s stall).
        var failure: String?
        /// Every `state:` the answers had (only `play` when the audio path stayed live).
        var states: Set<String> = []
    }

    private let stop = StopFlag()
    private let loop: BackgroundWork<Seen>

    /// Connects first (so the connection is not part of the measurement), then starts the loop.
    init(port: Int) throws {
        let connection = try MPDConnection(port: port)
        let box = ConnectionBox(connection)
        let stop = stop
        loop = BackgroundWork(name: "status-probe") {
            let connection = box.take()
            var seen = Seen(worst: nil, answered: 0, failure: nil)
            repeat {
                let start = MonotonicClock.seconds()
                let answer = connection.request("status", timeout: 60)
                let latency = MonotonicClock.seconds() - start
                guard answer.end == .ok else {
                    seen.failure = "status: \(answer.end) after \(String(format: "%.1f", latency)) s"
                    seen.worst = max(seen.worst ?? 0, latency)
                    break
                }
                seen.worst = max(seen.worst ?? 0, latency)
                seen.answered += 1
                seen.states.insert(answer.value("state") ?? "none")
                MonotonicClock.sleep(seconds: 0.002)
            } while !stop.isRaised
            return seen
        }
    }

    /// Stops the loop after its current `status` (whose answer still counts) and returns what it saw.
    func finish() -> Seen {
        stop.raise()
        return loop.join()
    }
}

/// Hands a connection made on one thread to the thread that will be its only user: taken once, by that thread.
final class ConnectionBox: Sendable {
    private let connection: Mutex<MPDConnection?>

    init(_ connection: sending MPDConnection) { self.connection = Mutex(connection) }

    func take() -> MPDConnection {
        connection.withLock { $0.take()! }
    }
}
