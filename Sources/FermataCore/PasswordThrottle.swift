import NIOCore
import Synchronization

/// Slows password guessing down: each refused `password` from a peer is answered only after a delay that doubles with
/// the peer's consecutive failures (`first`, 2 × `first`, … up to `cap`); an accepted password forgets the peer.
/// A peer's refusals are answered one after another, each its delay after the one before: guessing on 30 connections
/// at once gets the answers no faster than on one (it used to get all 30 within `cap`: 20 guesses a second). No answer
/// waits longer than `maxWait`, so a local process hammering the shared Unix-socket key delays another local
/// client's wrong password by at most that (the limit of 100 connections then allows 100 guesses a minute).
///
/// Peers are keyed by remote IP address for TCP (all connections from one address share the count, so opening more
/// connections does not reset it) and by one key for the Unix socket. A peer quiet for `forgetAfter` starts again at
/// `first`; at most `maxPeers` are remembered (the stalest are forgotten first), so the table stays small whatever a
/// client does.
///
/// Thread-safe (a mutex); one per `MPDServer`, called by every connection's `MPDClientHandler` on its event loop.
final class PasswordThrottle: Sendable {
    private struct Peer {
        var failures: Int
        var last: NIODeadline
        /// When the peer's latest refusal is answered; the next one is answered its own delay after that.
        var answered: NIODeadline
    }

    static let maxPeers = 4096
    static let forgetAfter = TimeAmount.minutes(10)
    static let maxWait = TimeAmount.seconds(60)

    let first: TimeAmount
    let cap: TimeAmount
    private let peers = Mutex<[String: Peer]>([:])

    init(first: TimeAmount, cap: TimeAmount) {
        self.first = first
        self.cap = cap
    }

    /// Records a refused password from `peer`; returns how long to wait before answering it.
    func refused(_ peer: String, now: NIODeadline = .now()) -> TimeAmount {
        peers.withLock { peers in
            var entry = peers[peer] ?? Peer(failures: 0, last: now, answered: now)
            if now - entry.last > Self.forgetAfter { entry.failures = 0 }
            entry.failures += 1
            entry.last = now
            entry.answered = min(max(now, entry.answered) + delay(afterFailures: entry.failures), now + Self.maxWait)
            peers[peer] = entry
            if peers.count > Self.maxPeers { Self.forgetStalest(&peers, now: now) }
            return entry.answered - now
        }
    }

    /// An accepted password: `peer` starts from scratch.
    func accepted(_ peer: String) { _ = peers.withLock { $0.removeValue(forKey: peer) } }

    /// `first` doubled for each failure after the first, at most `cap`.
    func delay(afterFailures failures: Int) -> TimeAmount {
        guard failures > 0 else { return .zero }
        let doublings = min(failures - 1, 62)
        let (scaled, overflow) = first.nanoseconds.multipliedReportingOverflow(by: Int64(1) << doublings)
        return overflow ? cap : .nanoseconds(min(scaled, cap.nanoseconds))
    }

    /// How many peers are remembered (for tests).
    var peerCount: Int { peers.withLock { $0.count } }

    /// Drops peers quiet for `forgetAfter`; if that is not enough, the one quiet the longest.
    private static func forgetStalest(_ peers: inout [String: Peer], now: NIODeadline) {
        peers = peers.filter { now - $0.value.last <= forgetAfter }
        while peers.count > maxPeers, let stalest = peers.min(by: { $0.value.last < $1.value.last })?.key {
            peers.removeValue(forKey: stalest)
        }
    }
}
