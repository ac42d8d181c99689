import FermataCore
import Foundation
import Testing

/// A named zone through Foundation (the daemon uses the system's the same way).
struct NamedZone: LocalTimeZone {
    let zone: TimeZone
    init(_ identifier: String) { zone = TimeZone(identifier: identifier)! }
    func secondsFromGMT(atUnixSeconds unixSeconds: Int64) -> Int {
        zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(unixSeconds)))
    }
}

/// Unix seconds of a UTC date and time (the tests write instants in UTC, where no clock changes).
func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int = 0) -> Int64 {
    CivilDate(year: year, month: month, day: day)!.daysSinceEpoch * 86_400 + Int64(hour * 3600 + minute * 60 + second)
}

/// The next firing as a pure function: the days it repeats, a date, and the two nights a year the clocks change in
/// Europe/Berlin (2026: forward on 29 March at 02:00 CET → 03:00 CEST, i.e. 01:00 UTC; back on 25 October at 03:00
/// CEST → 02:00 CET, i.e. 01:00 UTC).
@Suite struct AlarmScheduleTests {
    static let berlin = NamedZone("Europe/Berlin")

    static func schedule(_ time: String, _ repeats: String) -> AlarmSchedule {
        AlarmSchedule(time: AlarmTime(parsing: time)!, repeats: AlarmRepeat(parsing: repeats)!)
    }

    @Test func weekdaysSkipTheWeekend() {
        let alarm = Self.schedule("07:00", "weekdays")
        // Friday 2026-11-27 08:00 Berlin (07:00 UTC): next Monday 30 November 07:00 CET = 06:00 UTC.
        #expect(alarm.nextFiring(after: utc(2026, 11, 27, 7, 0), in: Self.berlin) == utc(2026, 11, 30, 6, 0))
        // Monday 06:59:59 CET: the same morning.
        #expect(alarm.nextFiring(after: utc(2026, 11, 30, 5, 59, 59), in: Self.berlin) == utc(2026, 11, 30, 6, 0))
        // Exactly at the firing: the next one (strictly after).
        #expect(alarm.nextFiring(after: utc(2026, 11, 30, 6, 0), in: Self.berlin) == utc(2026, 12, 1, 6, 0))
    }

    @Test func aSetOfDaysAndLateEveningsAcrossUTCMidnight() {
        let alarm = Self.schedule("23:30", "sun")
        // Sunday 29 November 23:30 CET is 22:30 UTC.
        #expect(alarm.nextFiring(after: utc(2026, 11, 27, 0, 0), in: Self.berlin) == utc(2026, 11, 29, 22, 30))
        let early = Self.schedule("00:15", "mon,thu")
        // Monday 30 November 00:15 CET is Sunday 23:15 UTC.
        #expect(early.nextFiring(after: utc(2026, 11, 29, 12, 0), in: Self.berlin) == utc(2026, 11, 29, 23, 15))
    }

    @Test func onceOnADateThenNever() {
        let alarm = Self.schedule("06:30", "2026-12-24")
        #expect(alarm.nextFiring(after: utc(2026, 11, 27, 0, 0), in: Self.berlin) == utc(2026, 12, 24, 5, 30))
        #expect(alarm.nextFiring(after: utc(2026, 12, 24, 5, 30), in: Self.berlin) == nil)
    }

    /// 02:30 does not exist on 29 March 2026 in Berlin: the alarm fires at the first instant after the gap, 03:00
    /// CEST (01:00 UTC), and the next day at 02:30 CEST as usual.
    @Test func springForwardFiresAtTheEndOfTheGap() {
        let alarm = Self.schedule("02:30", "daily")
        let first = alarm.nextFiring(after: utc(2026, 3, 28, 12, 0), in: Self.berlin)
        #expect(first == utc(2026, 3, 29, 1, 0))
        #expect(first.map { LocalTime.text(of: $0, in: Self.berlin, offset: true) } == "2026-03-29 03:00+02:00")
        #expect(alarm.nextFiring(after: first!, in: Self.berlin) == utc(2026, 3, 30, 0, 30))
        // A time just after the gap is untouched.
        #expect(Self.schedule("03:00", "daily").nextFiring(after: utc(2026, 3, 28, 12, 0), in: Self.berlin)
                == utc(2026, 3, 29, 1, 0))
    }

    /// 02:30 happens twice on 25 October 2026 in Berlin (00:30 and 01:30 UTC): the alarm fires at the first only; the
    /// next firing after it is the next day's.
    @Test func fallBackFiresOnce() {
        let alarm = Self.schedule("02:30", "daily")
        let first = alarm.nextFiring(after: utc(2026, 10, 24, 12, 0), in: Self.berlin)
        #expect(first == utc(2026, 10, 25, 0, 30))
        #expect(alarm.nextFiring(after: first!, in: Self.berlin) == utc(2026, 10, 26, 1, 30), "not at 01:30 UTC")
        #expect(alarm.nextFiring(after: utc(2026, 10, 25, 1, 0), in: Self.berlin) == utc(2026, 10, 26, 1, 30),
                "between the two 02:30s: the next day's")
    }

    @Test func parsingAndPrinting() {
        #expect(AlarmRepeat(parsing: "weekdays")?.description == "weekdays")
        #expect(AlarmRepeat(parsing: "mon,tue,wed,thu,fri")?.description == "weekdays")
        #expect(AlarmRepeat(parsing: "sun,sat")?.description == "weekends")
        #expect(AlarmRepeat(parsing: "fri,mon")?.description == "mon,fri")
        #expect(AlarmRepeat(parsing: "once:2026-12-24") == .once(CivilDate(year: 2026, month: 12, day: 24)!))
        for bad in ["", "mon,,tue", "mon,mon", "monday", "2026-02-30", "2026-13-01", "26-12-24", "once:", "1969-12-31"] {
            #expect(AlarmRepeat(parsing: bad) == nil, "\(bad)")
        }
        #expect(AlarmTime(parsing: "7:05")?.description == "07:05")
        for bad in ["24:00", "07:60", "7", "07:5", "-1:00", "07:00:00", "٠٧:٠٠"] { #expect(AlarmTime(parsing: bad) == nil, "\(bad)") }
        #expect(AlarmSource(parsing: "playlist:Wake") == .target(.playlist("Wake")))
        #expect(AlarmSource(parsing: "https://radio.example/stream.mp3") == .stream("https://radio.example/stream.mp3"))
        #expect(AlarmSource(parsing: "http://a b") == nil)
        #expect(AlarmSource(parsing: "radio") == nil)
    }

    @Test func civilDatesRoundTrip() {
        for days in stride(from: Int64(-800_000), through: 2_932_896, by: 997) {
            let date = CivilDate(daysSinceEpoch: days)
            #expect(date.daysSinceEpoch == days)
        }
        #expect(CivilDate(daysSinceEpoch: 0).description == "1970-01-01")
        #expect(LocalTime.weekday(ofDay: 0) == 3, "a Thursday")
        #expect(LocalTime.weekday(ofDay: CivilDate(year: 2026, month: 11, day: 30)!.daysSinceEpoch) == 0, "a Monday")
    }
}
