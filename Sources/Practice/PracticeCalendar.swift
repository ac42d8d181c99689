import Foundation

/// Local calendar days (`YYYY-MM-DD`, in the time zone given, by default `TZ`/the system's) and ISO weeks (Monday to
/// Sunday) for practice statistics.
/// A value type; safe to use from any task.
public struct PracticeCalendar: Sendable {
    let calendar: Calendar

    public init(timeZone: TimeZone = .current) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        calendar.firstWeekday = 2  // Monday
        calendar.minimumDaysInFirstWeek = 4
        calendar.locale = Locale(identifier: "en_US_POSIX")
        self.calendar = calendar
    }

    /// The local day holding `date`.
    public func day(_ date: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return Self.key(year: parts.year ?? 0, month: parts.month ?? 0, day: parts.day ?? 0)
    }

    /// The first instant of the day after the one holding `date` (a DST day is 23 or 25 hours long).
    public func nextMidnight(after date: Date) -> Date {
        let start = calendar.startOfDay(for: date)
        return calendar.date(byAdding: .day, value: 1, to: start) ?? start.addingTimeInterval(86_400)
    }

    /// Monday and Sunday of the ISO week holding `date`.
    public func week(_ date: Date) -> (first: String, last: String) {
        let start = calendar.startOfDay(for: date)
        let weekday = calendar.component(.weekday, from: start)  // 1 = Sunday … 7 = Saturday
        let back = (weekday + 5) % 7
        let monday = calendar.date(byAdding: .day, value: -back, to: start) ?? start
        let sunday = calendar.date(byAdding: .day, value: 6, to: monday) ?? monday
        return (day(monday), day(sunday))
    }

    /// Noon of a `YYYY-MM-DD` day, or nil when there is no such day (2025-02-30).
    public func date(ofDay key: String) -> Date? {
        let parts = key.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        let components = DateComponents(year: parts[0], month: parts[1], day: parts[2], hour: 12)
        guard let date = calendar.date(from: components), day(date) == key else { return nil }
        return date
    }

    static func key(year: Int, month: Int, day: Int) -> String {
        let y = String(year), m = String(month), d = String(day)
        return String(repeating: "0", count: max(0, 4 - y.count)) + y + "-" + (m.count < 2 ? "0" : "") + m + "-"
            + (d.count < 2 ? "0" : "") + d
    }
}
