import AudioCore
import Foundation
import Synchronization
import Testing

@Suite struct DoorbellTests {
    @Test func aRingWakesTheWaiterAndABurstWakesItOnce() {
        let bell = Doorbell()
        bell.ring()
        bell.ring()
        #expect(bell.wait(nanoseconds: 60_000_000_000))
        #expect(!bell.wait(nanoseconds: 1_000_000), "the burst was consumed by the first wait")
    }

    @Test func aTimedWaitLastsAtLeastItsTime() {
        let bell = Doorbell()
        let start = MonotonicClock.seconds()
        #expect(!bell.wait(nanoseconds: 50_000_000))
        #expect(MonotonicClock.seconds() - start >= 0.05)
        #expect(!bell.wait(nanoseconds: 0) && !bell.wait(nanoseconds: -5), "no time: an immediate answer")
    }
}

/// CLOCK_MONOTONIC in seconds, for measuring waits the way the Doorbell now times them. Any thread.
enum MonotonicClock {
    static func seconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
