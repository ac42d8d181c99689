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
