import FermataCore
import Testing

/// The password-guessing throttle the MPD port and the web remote's login share (`PasswordThrottle`), on a clock the
/// test moves itself.
@Suite struct PasswordThrottleTests {
    @Test func theThrottleDoublesUpToItsCapPerPeerAndForgets() {
        let throttle = PasswordThrottle(first: .milliseconds(100), cap: .seconds(3))
        let now = ContinuousClock.now
        // A client that waits for each answer before guessing again.
        var clock = now
        let delays = (0..<8).map { _ in
            let delay = throttle.refused("10.0.0.1", now: clock)
            clock = clock + delay
            return delay / .milliseconds(1)
        }
        #expect(delays == [100, 200, 400, 800, 1_600, 3_000, 3_000, 3_000])
        // Guesses sent at the same moment (on many connections) are answered one delay after another.
        let simultaneous = (0..<4).map { _ in throttle.refused("10.0.0.3", now: now) / .milliseconds(1) }
        #expect(simultaneous == [100, 300, 700, 1_500])
        // ... but none waits longer than `maxWait`: from the 6th on they come 3 s apart (the 23rd at 57.1 s), so the
        // 24th to the 30th are all answered at 60 s.
        let queued = (0..<30).map { _ in throttle.refused("10.0.0.4", now: now) }
        #expect(queued[22] == .milliseconds(57_100))
        #expect(queued[23...].allSatisfy { $0 == PasswordThrottle.maxWait })
        #expect(throttle.refused("10.0.0.2", now: now) == .milliseconds(100), "another address has its own count")
        throttle.accepted("10.0.0.1")
        #expect(throttle.refused("10.0.0.1", now: clock) == .milliseconds(100), "a right password starts again")
        let later = now + PasswordThrottle.forgetAfter + .seconds(1)
        #expect(throttle.refused("10.0.0.2", now: later) == .milliseconds(100), "a quiet peer starts again")
        #expect(throttle.delay(afterFailures: 1_000) == .seconds(3))
        for index in 0..<(PasswordThrottle.maxPeers + 10) { _ = throttle.refused("peer \(index)", now: later) }
        #expect(throttle.peerCount <= PasswordThrottle.maxPeers)
    }

}
