/// A time zone as the alarms need it: the offset from UTC in force at an instant. The daemon gives the system's
/// (`/etc/localtime`), tests give a named zone (Europe/Berlin, for its DST changes), so this module needs no Foundation.
///
/// Implementations are values any thread may call.
public protocol LocalTimeZone: Sendable {
    /// Seconds east of UTC in force at `unixSeconds`.
    func secondsFromGMT(atUnixSeconds unixSeconds: Int64) -> Int
}

/// A day of the proleptic Gregorian calendar (`2026-12-24`), as alarms name a date; convertible to and from days since
/// 1970-01-01 (Howard Hinnant's civil-date algorithms, exact for every Int32 year).
///
/// A value; any thread.
public struct CivilDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    /// Nil unless `month` is 1–12 and `day` exists in that month, `year` 1970–9999.
    public init?(year: Int, month: Int, day: Int) {
        guard (1970...9999).contains(year), (1...12).contains(month), day >= 1,
              day <= Self.daysIn(month: month, year: year) else { return nil }
        (self.year, self.month, self.day) = (year, month, day)
    }

    /// `YYYY-MM-DD` exactly.
    public init?(parsing text: some StringProtocol) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.utf8.allSatisfy { (48...57).contains($0) } }),
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]) else { return nil }
        self.init(year: y, month: m, day: d)
    }

    /// The date `days` after 1970-01-01 (negative: before).
    public init(daysSinceEpoch days: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        (year, month, day) = (Int(yoe + era * 400 + (m <= 2 ? 1 : 0)), Int(m), Int(d))
    }

    /// Days since 1970-01-01.
    public var daysSinceEpoch: Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    public var description: String {
        String(year) + "-" + (month < 10 ? "0" : "") + String(month) + "-" + (day < 10 ? "0" : "") + String(day)
    }

    public static func < (l: Self, r: Self) -> Bool { (l.year, l.month, l.day) < (r.year, r.month, r.day) }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

/// Local time arithmetic over a `LocalTimeZone`: which local day an instant falls on, and the instant a local time
/// names — the first of two on a night the clocks go back, the first instant after the gap on a night they go forward.
///
/// Pure; any thread.
public enum LocalTime {
    /// The local day (days since 1970-01-01) `unixSeconds` falls on.
    public static func day(of unixSeconds: Int64, in zone: some LocalTimeZone) -> Int64 {
        floorDiv(unixSeconds + Int64(zone.secondsFromGMT(atUnixSeconds: unixSeconds)), 86_400)
    }

    /// Monday 0 … Sunday 6 of local day `day` (1970-01-01 was a Thursday).
    public static func weekday(ofDay day: Int64) -> Int { Int(((day % 7) + 7 + 3) % 7) }

    /// The instant the local clock reads `localSeconds` (seconds since 1970-01-01 00:00 local): the earlier when it
    /// reads it twice, the first instant after the gap when it never does (02:30 on the night the clocks go from 02:00
    /// to 03:00 is 03:00).
    public static func instant(ofLocal localSeconds: Int64, in zone: some LocalTimeZone) -> Int64 {
        // At most one change of offset within a day either side of any instant, in every real zone.
        let before = Int64(zone.secondsFromGMT(atUnixSeconds: localSeconds - 86_400))
        let after = Int64(zone.secondsFromGMT(atUnixSeconds: localSeconds + 86_400))
        let valid = [localSeconds - before, localSeconds - after].filter {
            $0 + Int64(zone.secondsFromGMT(atUnixSeconds: $0)) == localSeconds
        }
        if let first = valid.min() { return first }
        guard after > before else { return localSeconds - before }
        // In the gap: the change happens between these two instants; the first one at the new offset is the answer.
        var low = localSeconds - after, high = localSeconds - before
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if Int64(zone.secondsFromGMT(atUnixSeconds: middle)) == before { low = middle } else { high = middle }
        }
        return high
    }

    /// `2026-12-24 07:00` in the zone, with its offset (`+01:00`) when `offset` is asked for.
    public static func text(of unixSeconds: Int64, in zone: some LocalTimeZone, offset: Bool = false) -> String {
        let shift = zone.secondsFromGMT(atUnixSeconds: unixSeconds)
        let local = unixSeconds + Int64(shift)
        let date = CivilDate(daysSinceEpoch: floorDiv(local, 86_400))
        let seconds = Int(local - floorDiv(local, 86_400) * 86_400)
        var text = date.description + " " + AlarmTime.twoDigits(seconds / 3600) + ":" + AlarmTime.twoDigits(seconds % 3600 / 60)
        if offset {
            let minutes = abs(shift) / 60
            text += (shift < 0 ? "-" : "+") + AlarmTime.twoDigits(minutes / 60) + ":" + AlarmTime.twoDigits(minutes % 60)
        }
        return text
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
}
