import Synchronization

/// Slows password guessing down: each refused `password` from a peer is answered only after a delay that doubles with
/// the peer's consecutive failures (`first`, 2 × `first`, … up to `cap`); an accepted password forgets the peer.
/// A peer's refusals are answered one after another, each its delay after the one before: guessing on 30 connections
/// at once gets the answers no faster than on one (it used to get all 30 within `cap`: 20 guesses a second). No answer
/// waits longer than `maxWait`, so a local process hammering the shared Unix-socket key delays another local
/// client's wrong password by at most that (the limit of 100 connections then allows 100 guesses a minute).
///
/// Peers are keyed by remote IP address for TCP (all connections from one address share the count, so opening more
/// connections does not reset it) and by one key for the Unix socket. The MPD port and the web remote share one
/// throttle: a guesser gains nothing by switching between them. A peer quiet for `forgetAfter` starts again at
/// `first`; at most `maxPeers` are remembered (the stalest are forgotten first), so the table stays small whatever a
/// client does.
///
/// Thread-safe (a mutex); one per daemon, called by every MPD connection's handler on its event loop and by the web
/// remote's login.
public final class PasswordThrottle: Sendable {
    private struct Peer {
        var failures: Int
        var last: ContinuousClock.Instant
        /// When the peer's latest refusal is answered; the next one is answered its own delay after that.
        var answered: ContinuousClock.Instant
    }

    public static let maxPeers = 4096
    public static let forgetAfter = Duration.seconds(600)
    public static let maxWait = Duration.seconds(60)

    public let first: Duration
    public let cap: Duration
    private let peers = Mutex<[String: Peer]>([:])

    public init(first: Duration, cap: Duration) {
        self.first = first
        self.cap = cap
    }

    /// Records a refused password from `peer`; returns how long to wait before answering it.
    public func refused(_ peer: String, now: ContinuousClock.Instant = .now) -> Duration {
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
    public func accepted(_ peer: String) { _ = peers.withLock { $0.removeValue(forKey: peer) } }

    /// `first` doubled for each failure after the first, at most `cap`.
    public func delay(afterFailures failures: Int) -> Duration {
        guard failures > 0 else { return .zero }
        var delay = first
        for _ in 1..<min(failures, 64) {
            delay *= 2
            if delay >= cap { return cap }
        }
        return min(delay, cap)
    }

    /// How many peers are remembered (for tests).
    public var peerCount: Int { peers.withLock { $0.count } }

    /// Drops peers quiet for `forgetAfter`; if that is not enough, the one quiet the longest.
    private static func forgetStalest(_ peers: inout [String: Peer], now: ContinuousClock.Instant) {
        peers = peers.filter { now - $0.value.last <= forgetAfter }
        while peers.count > maxPeers, let stalest = peers.min(by: { $0.value.last < $1.value.last })?.key {
            peers.removeValue(forKey: stalest)
        }
    }
}
