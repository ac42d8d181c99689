/// When an alarm fires, as a pure function of the instant after which to look and the time zone: the alarm's local
/// time on the next day it repeats. The nights the clocks change are the local clock's business, resolved by
/// `LocalTime.instant(ofLocal:in:)`: a time the clock skips (02:30 when it goes from 02:00 to 03:00) fires at the
/// first instant after the gap (03:00); a time it reads twice (02:30 when it goes back from 03:00 to 02:00) fires
/// once, at the first. `AlarmScheduleTests` checks both in Europe/Berlin.
///
/// A value; any thread.
public struct AlarmSchedule: Sendable, Hashable {
    public var time: AlarmTime
    public var repeats: AlarmRepeat

    public init(time: AlarmTime, repeats: AlarmRepeat) {
        self.time = time
        self.repeats = repeats
    }

    /// The first firing strictly after `unixSeconds`, in Unix seconds; nil for a date that has passed.
    public func nextFiring(after unixSeconds: Int64, in zone: some LocalTimeZone) -> Int64? {
        switch repeats {
        case let .once(date):
            let at = firing(onDay: date.daysSinceEpoch, in: zone)
            return at > unixSeconds ? at : nil
        case let .days(mask):
            guard mask & AlarmRepeat.everyDay != 0 else { return nil }
            // From the day before (a firing late on a local day can be early on the UTC one) over the next week.
            let today = LocalTime.day(of: unixSeconds, in: zone)
            for day in (today - 1)...(today + 8) where mask & (1 << LocalTime.weekday(ofDay: day)) != 0 {
                let at = firing(onDay: day, in: zone)
                if at > unixSeconds { return at }
            }
            return nil
        }
    }

    /// The instant of this time on local day `day`.
    func firing(onDay day: Int64, in zone: some LocalTimeZone) -> Int64 {
        LocalTime.instant(ofLocal: day * 86_400 + time.secondsOfDay, in: zone)
    }
}
