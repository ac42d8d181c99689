import FermataCore
import Testing

/// The sleep timer on a test clock: the countdown, the fade at its end, what cancels it and what does not.
@Suite struct SleepTimerTests {
    static let s: UInt64 = 1_000_000_000
    static let t0: UInt64 = 1_000 * s

    @Test func countsDownThenFadesOverItsLastSecondsThenPauses() {
        var timer = SleepTimer(fadeSeconds: 30, endAction: .pause)
        let t0 = Self.t0, s = Self.s
        #expect(timer.set(seconds: 600, at: t0, playing: true) == [.changed(.set(seconds: 600))])
        #expect(timer.remainingSeconds(at: t0) == 600)
        #expect(timer.remainingSeconds(at: t0 + s / 2) == 600, "rounded up")
        #expect(timer.tick(at: t0 + 569 * s, playing: true, fade: .falling).isEmpty)
        #expect(timer.tick(at: t0 + 570 * s, playing: true, fade: .falling)
                == [.fadeOut(milliseconds: 30_000), .changed(.fadeBegan)])
        #expect(timer.tick(at: t0 + 585 * s, playing: true, fade: .falling).isEmpty, "still falling")
        #expect(timer.remainingSeconds(at: t0 + 585 * s) == 15)
        #expect(timer.tick(at: t0 + 600 * s, playing: true, fade: .silent)
                == [.endPlayback(.pause), .changed(.ended(.pause))])
        #expect(timer.phase == .off)
        #expect(timer.remainingSeconds(at: t0 + 601 * s) == nil)
    }

    @Test func shorterThanTheFadeFadesOverAllOfItAtOnce() {
        var timer = SleepTimer(fadeSeconds: 30, endAction: .stop)
        #expect(timer.set(seconds: 10, at: Self.t0, playing: true)
                == [.changed(.set(seconds: 10)), .fadeOut(milliseconds: 10_000), .changed(.fadeBegan)])
        #expect(timer.tick(at: Self.t0 + 10 * Self.s, playing: true, fade: .silent)
                == [.endPlayback(.stop), .changed(.ended(.stop))])
    }

    /// Pause, play and the volume do not touch the countdown; during the fade a pause by someone ends the timer.
    @Test func onlyOffOrANewTimeChangesTheCountdown() {
        var timer = SleepTimer(fadeSeconds: 30, endAction: .pause)
        let t0 = Self.t0, s = Self.s
        _ = timer.set(seconds: 600, at: t0, playing: true)
        #expect(timer.tick(at: t0 + 100 * s, playing: false, fade: .falling).isEmpty, "paused: still counting")
        #expect(timer.tick(at: t0 + 200 * s, playing: true, fade: .falling).isEmpty)
        #expect(timer.remainingSeconds(at: t0 + 200 * s) == 400)
        #expect(timer.set(seconds: 60, at: t0 + 200 * s, playing: true) == [.changed(.set(seconds: 60))], "a new time")
        #expect(timer.remainingSeconds(at: t0 + 200 * s) == 60)
        #expect(timer.cancel() == [.changed(.cancelled)])
        #expect(timer.cancel().isEmpty, "off twice is nothing")
        #expect(timer.tick(at: t0 + 900 * s, playing: true, fade: .falling).isEmpty)
    }

    @Test func aPauseDuringTheFadeEndsTheTimerThere() {
        var timer = SleepTimer(fadeSeconds: 30, endAction: .pause)
        let t0 = Self.t0, s = Self.s
        _ = timer.set(seconds: 40, at: t0, playing: true)
        _ = timer.tick(at: t0 + 10 * s, playing: true, fade: .falling)
        guard case .fading = timer.phase else { Issue.record("not fading: \(timer.phase)"); return }
        // The output let the fade go (it paused): the music is back at its level for the next play.
        #expect(timer.tick(at: t0 + 20 * s, playing: true, fade: .released) == [.changed(.interrupted)])
        #expect(timer.phase == .off)
        // The player paused but the output has not said so yet (or had not begun the fade): the fade is called off.
        _ = timer.set(seconds: 20, at: t0 + 30 * s, playing: true)
        #expect(timer.tick(at: t0 + 31 * s, playing: false, fade: .falling) == [.restoreLevel, .changed(.interrupted)])
    }

    @Test func offDuringTheFadeBringsTheLevelBack() {
        var timer = SleepTimer(fadeSeconds: 30, endAction: .pause)
        _ = timer.set(seconds: 20, at: Self.t0, playing: true)
        #expect(timer.cancel() == [.restoreLevel, .changed(.cancelled)])
        _ = timer.set(seconds: 20, at: Self.t0, playing: true)
        #expect(timer.set(seconds: 3600, at: Self.t0 + Self.s, playing: true)
                == [.restoreLevel, .changed(.set(seconds: 3600))], "a new, longer time calls the fade off")
    }

    @Test func pausedWhenTheFadeShouldBeginItBeginsOnPlayOverWhatIsLeft() {
        var timer = SleepTimer(fadeSeconds: 30, endAction: .pause)
        let t0 = Self.t0, s = Self.s
        _ = timer.set(seconds: 100, at: t0, playing: true)
        #expect(timer.tick(at: t0 + 75 * s, playing: false, fade: .falling).isEmpty)
        #expect(timer.tick(at: t0 + 90 * s, playing: true, fade: .falling)
                == [.fadeOut(milliseconds: 10_000), .changed(.fadeBegan)])
        // Not playing when the time runs out: nothing to put to sleep.
        _ = timer.set(seconds: 100, at: t0, playing: false)
        #expect(timer.tick(at: t0 + 100 * s, playing: false, fade: .falling) == [.changed(.ranOutNotPlaying)])
    }

    @Test func aFadeTheOutputNeverReportsEndsAfterTheGrace() {
        var timer = SleepTimer(fadeSeconds: 5, endAction: .pause)
        let t0 = Self.t0, s = Self.s
        _ = timer.set(seconds: 5, at: t0, playing: true)
        #expect(timer.tick(at: t0 + 9 * s, playing: true, fade: .falling).isEmpty)
        #expect(timer.tick(at: t0 + 10 * s, playing: true, fade: .falling)
                == [.endPlayback(.pause), .changed(.ended(.pause))])
    }

    @Test func noFadeEndsAtTheTime() {
        var timer = SleepTimer(fadeSeconds: 0, endAction: .stop)
        _ = timer.set(seconds: 5, at: Self.t0, playing: true)
        #expect(timer.tick(at: Self.t0 + 4 * Self.s, playing: true, fade: .falling).isEmpty)
        #expect(timer.tick(at: Self.t0 + 5 * Self.s, playing: true, fade: .falling)
                == [.endPlayback(.stop), .changed(.ended(.stop))])
    }

    @Test func outOfRangeTimesAreClampedNotTrapped() {
        var timer = SleepTimer(fadeSeconds: 30, endAction: .pause)
        _ = timer.set(seconds: .max, at: .max - 10, playing: false)
        #expect(timer.remainingSeconds(at: .max - 10) != nil)
        _ = timer.set(seconds: -5, at: 0, playing: false)
        #expect(timer.remainingSeconds(at: 0) == 1)
    }
}
