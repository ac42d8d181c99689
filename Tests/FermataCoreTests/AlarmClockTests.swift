import FermataCore
import Testing

/// The alarm clock tick by tick on a test clock: what fires, what a wall clock set forward skips, and that a clock set
/// back does not fire twice.
@Suite struct AlarmClockTests {
    static let berlin = AlarmScheduleTests.berlin
    static let s: UInt64 = 1_000_000_000
    /// 07:00 daily in Berlin, id 1.
    static let daily = Alarm(id: 1, time: AlarmTime(hour: 7, minute: 0)!, repeats: .days(AlarmRepeat.everyDay),
                             source: .target(.playlist("Wake")))
    /// Monday 30 November 2026 07:00 CET.
    static let seven = utc(2026, 11, 30, 6, 0)

    /// Readings one second apart from `wall` (Unix seconds) on both clocks.
    static func reading(_ wall: Int64, _ monotonic: UInt64) -> AlarmClock.Reading {
        AlarmClock.Reading(wallMilliseconds: wall * 1000, monotonicNanoseconds: monotonic)
    }

    @Test func firesOnceWhenItsTimePasses() {
        var clock = AlarmClock()
        var alarm = Self.daily
        let t = Self.seven
        #expect(clock.tick(Self.reading(t - 2, 100 * Self.s), alarms: [alarm], in: Self.berlin).isEmpty, "first look")
        #expect(clock.tick(Self.reading(t - 1, 101 * Self.s), alarms: [alarm], in: Self.berlin).isEmpty)
        #expect(clock.tick(Self.reading(t, 102 * Self.s), alarms: [alarm], in: Self.berlin) == [.fire(1, at: t)])
        alarm.lastFired = t
        #expect(clock.tick(Self.reading(t + 1, 103 * Self.s), alarms: [alarm], in: Self.berlin).isEmpty)
    }

    @Test func nothingFiresForTimeBeforeTheFirstLook() {
        var clock = AlarmClock()
        #expect(clock.tick(Self.reading(Self.seven + 30, 5 * Self.s), alarms: [Self.daily], in: Self.berlin).isEmpty)
        #expect(clock.tick(Self.reading(Self.seven + 31, 6 * Self.s), alarms: [Self.daily], in: Self.berlin).isEmpty)
    }

    /// A Pi booted at the time it last shut down (Sunday evening); NTP then sets the clock to Monday 09:00. Monday's
    /// 07:00 was jumped over: skipped, and reported. The next morning fires as usual.
    @Test func aClockSetForwardSkipsWhatItJumpedOver() {
        var clock = AlarmClock()
        let sunday = utc(2026, 11, 29, 21, 0)
        #expect(clock.tick(Self.reading(sunday, 10 * Self.s), alarms: [Self.daily], in: Self.berlin).isEmpty)
        let events = clock.tick(Self.reading(Self.seven + 7200, 11 * Self.s), alarms: [Self.daily], in: Self.berlin)
        #expect(events == [.clockJumped(milliseconds: (Self.seven + 7200 - sunday - 1) * 1000),
                           .skippedByClockJump(1, at: Self.seven)])
        #expect(clock.tick(Self.reading(Self.seven + 7201, 12 * Self.s), alarms: [Self.daily], in: Self.berlin).isEmpty)
        // 24 hours of ticks later (one reading, clocks in step): Tuesday's fires.
        let tuesday = Self.seven + 86_400
        #expect(clock.tick(Self.reading(tuesday + 1, 12 * Self.s + UInt64(tuesday + 1 - Self.seven - 7201) * Self.s),
                           alarms: [Self.daily], in: Self.berlin) == [.fire(1, at: tuesday)])
    }

    /// A forward slew within the tolerance (NTP's small corrections) is ordinary progress: it fires.
    @Test func aSmallCorrectionIsNotAJump() {
        var clock = AlarmClock()
        _ = clock.tick(Self.reading(Self.seven - 30, 10 * Self.s), alarms: [Self.daily], in: Self.berlin)
        #expect(clock.tick(Self.reading(Self.seven + 20, 11 * Self.s), alarms: [Self.daily], in: Self.berlin)
                == [.fire(1, at: Self.seven)])
    }

    /// Fired at 07:00; the clock is then set back ten minutes and runs through 07:00 again: no second firing.
    @Test func aClockSetBackDoesNotFireTwice() {
        var clock = AlarmClock()
        var alarm = Self.daily
        let t = Self.seven
        _ = clock.tick(Self.reading(t - 1, 10 * Self.s), alarms: [alarm], in: Self.berlin)
        #expect(clock.tick(Self.reading(t + 1, 12 * Self.s), alarms: [alarm], in: Self.berlin) == [.fire(1, at: t)])
        alarm.lastFired = t
        #expect(clock.tick(Self.reading(t - 600, 13 * Self.s), alarms: [alarm], in: Self.berlin)
                == [.clockJumped(milliseconds: -602_000)])
        var monotonic = 13 * Self.s
        for wall in stride(from: t - 599, through: t + 60, by: 1) {
            monotonic += Self.s
            #expect(clock.tick(Self.reading(wall, monotonic), alarms: [alarm], in: Self.berlin).isEmpty, "\(wall - t)")
        }
    }

    /// The daemon held up for an hour (both clocks moved): a firing that late is missed, not played.
    @Test func aFiringNoticedTooLateIsMissed() {
        var clock = AlarmClock()
        _ = clock.tick(Self.reading(Self.seven - 1800, 10 * Self.s), alarms: [Self.daily], in: Self.berlin)
        #expect(clock.tick(Self.reading(Self.seven + 1800, 3610 * Self.s), alarms: [Self.daily], in: Self.berlin)
                == [.missed(1, at: Self.seven)])
    }

    /// The night the clocks go back in Berlin: 02:30 comes twice; ticking second by second through the whole night
    /// fires once.
    @Test func theNightTheClocksGoBackFiresOnce() {
        var clock = AlarmClock()
        var alarm = Alarm(id: 7, time: AlarmTime(hour: 2, minute: 30)!, repeats: .days(AlarmRepeat.everyDay),
                          source: .target(.playlist("Night")))
        var fired: [Int64] = []
        var monotonic: UInt64 = 0
        for wall in stride(from: utc(2026, 10, 24, 23, 0), through: utc(2026, 10, 25, 3, 0), by: 1) {
            monotonic += Self.s
            for case let .fire(_, at) in clock.tick(Self.reading(wall, monotonic), alarms: [alarm], in: Self.berlin) {
                fired.append(at)
                alarm.lastFired = at
            }
        }
        #expect(fired == [utc(2026, 10, 25, 0, 30)])
    }

    /// The night they go forward: 02:30 never comes; the alarm fires once, at 03:00 CEST.
    @Test func theNightTheClocksGoForwardFiresAtTheEndOfTheGap() {
        var clock = AlarmClock()
        let alarm = Alarm(id: 8, time: AlarmTime(hour: 2, minute: 30)!, repeats: .days(AlarmRepeat.everyDay),
                          source: .target(.playlist("Night")))
        var fired: [Int64] = []
        var monotonic: UInt64 = 0
        for wall in stride(from: utc(2026, 3, 28, 23, 0), through: utc(2026, 3, 29, 3, 0), by: 10) {
            monotonic += 10 * Self.s
            for case let .fire(_, at) in clock.tick(Self.reading(wall, monotonic), alarms: [alarm], in: Self.berlin) {
                fired.append(at)
            }
        }
        #expect(fired == [utc(2026, 3, 29, 1, 0)])
    }

    @Test func aDisabledAlarmNeverFires() {
        var clock = AlarmClock()
        var alarm = Self.daily
        alarm.enabled = false
        _ = clock.tick(Self.reading(Self.seven - 1, 1 * Self.s), alarms: [alarm], in: Self.berlin)
        #expect(clock.tick(Self.reading(Self.seven + 1, 3 * Self.s), alarms: [alarm], in: Self.berlin).isEmpty)
    }
}
