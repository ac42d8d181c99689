@testable import Controls
import Testing

@Suite struct ButtonGesturesTests {
    let ms: UInt64 = 1_000_000

    @Test func plainButtonFiresOnTheWayDown() {
        var g = ButtonGestures(timing: GestureTiming())
        #expect(g.press(at: 0) == [.press])
        #expect(g.deadline == nil)
        #expect(g.release(at: 50 * ms) == [])
    }

    @Test func longPressButtonDecidesOnReleaseOrAtTheLongTime() {
        var g = ButtonGestures(timing: GestureTiming(pressOnDown: false, longPress: 600 * ms))
        #expect(g.press(at: 0) == [])
        #expect(g.release(at: 599 * ms) == [.press])
        _ = g.press(at: 1000 * ms)
        #expect(g.expire(now: 1599 * ms).isEmpty)
        #expect(g.expire(now: 1600 * ms).map(\.0) == [.longPress])
        #expect(g.release(at: 2000 * ms) == [])
    }

    @Test func repeatStartsAfterTheDelayAndKeepsItsPace() {
        var g = ButtonGestures(timing: GestureTiming(pressOnDown: true, repeatDelay: 400 * ms,
                                                     repeatInterval: 100 * ms))
        #expect(g.press(at: 0) == [.press])
        let fired = g.expire(now: 705 * ms)
        #expect(fired.map(\.1) == [400 * ms, 500 * ms, 600 * ms, 700 * ms])
        #expect(g.release(at: 710 * ms) == [])
        #expect(g.deadline == nil)
    }

    @Test func pressThatDiffersFromItsRepeatFiresOnlyWhenReleasedEarly() {
        let timing = GestureTiming(pressOnDown: false, repeatDelay: 400 * ms, repeatInterval: 200 * ms)
        var g = ButtonGestures(timing: timing)
        _ = g.press(at: 0)
        #expect(g.release(at: 300 * ms) == [.press])
        _ = g.press(at: 1000 * ms)
        #expect(g.expire(now: 1400 * ms).map(\.0) == [.repeat])
        #expect(g.release(at: 1500 * ms) == [])
    }

    @Test func doublePressAndTheSingleTapThatWaitsForTheWindow() {
        var g = ButtonGestures(timing: GestureTiming(pressOnDown: false, doubleWindow: 300 * ms))
        _ = g.press(at: 0)
        #expect(g.release(at: 50 * ms) == [])
        #expect(g.press(at: 200 * ms) == [.doublePress])
        #expect(g.release(at: 260 * ms) == [])
        _ = g.press(at: 1000 * ms)
        _ = g.release(at: 1050 * ms)
        #expect(g.expire(now: 1349 * ms).isEmpty)
        #expect(g.expire(now: 1350 * ms).map(\.0) == [.press])
    }

    @Test func holdTierTurnsTheLongPressIntoARelease() {
        var g = ButtonGestures(timing: GestureTiming(pressOnDown: false, longPress: 600 * ms, hold: 3000 * ms))
        _ = g.press(at: 0)
        #expect(g.expire(now: 1000 * ms).isEmpty)
        #expect(g.release(at: 1000 * ms) == [.longPress])
        _ = g.press(at: 5000 * ms)
        #expect(g.expire(now: 8000 * ms).map(\.0) == [.hold])
        #expect(g.release(at: 9000 * ms) == [])
    }

    @Test func aClaimedPressStaysSilentUntilReleased() {
        var g = ButtonGestures(timing: GestureTiming(pressOnDown: false, longPress: 600 * ms))
        _ = g.press(at: 0)
        #expect(g.isFreshlyDown)
        g.claim()
        #expect(g.expire(now: 5000 * ms).isEmpty)
        #expect(g.release(at: 5000 * ms) == [])
        #expect(!g.isDown)
    }
}
