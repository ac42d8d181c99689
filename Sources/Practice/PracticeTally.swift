import Foundation

/// What one stretch of playing time is counted against: the track (its queue path) and the A–B loop region active,
/// its ends in milliseconds of the track.
public struct PracticeSubject: Sendable, Hashable {
    public var path: String
    public var loop: LoopMilliseconds?

    /// A loop region's ends, rounded to the millisecond (so the same region set twice is one region).
    public struct LoopMilliseconds: Sendable, Hashable {
        public var start: Int64
        public var end: Int64

        public init(start: Int64, end: Int64) {
            self.start = start
            self.end = end
        }
    }

    public init(path: String, loop: LoopMilliseconds? = nil) {
        self.path = path
        self.loop = loop
    }
}

/// Practice time not yet written: seconds per local day and subject. Stretches that cross midnight are split at it.
/// A value type, owned by `PracticeRecorder`.
struct PracticeTally: Sendable {
    struct Key: Sendable, Hashable {
        var day: String
        var subject: PracticeSubject
    }

    let calendar: PracticeCalendar
    private(set) var pending: [Key: Double] = [:]
    /// The fastest tempo (percent) of a loop pass heard to its end, per day and loop region, not yet written.
    private(set) var reached: [Key: Int] = [:]

    init(calendar: PracticeCalendar) { self.calendar = calendar }

    var isEmpty: Bool { pending.isEmpty && reached.isEmpty }

    /// A pass over `subject`'s loop region ended at `percent` at `date` (kept: the fastest of the day).
    mutating func reach(_ percent: Int, at date: Date, _ subject: PracticeSubject) {
        guard subject.loop != nil, (50...150).contains(percent) else { return }
        let key = Key(day: calendar.day(date), subject: subject)
        reached[key] = max(reached[key] ?? 0, percent)
    }

    /// Hands the reached tempos over and forgets them.
    mutating func takeReached() -> [Key: Int] {
        defer { reached.removeAll() }
        return reached
    }

    /// Puts back reached tempos that could not be written.
    mutating func restoreReached(_ rows: [Key: Int]) {
        reached.merge(rows, uniquingKeysWith: max)
    }

    /// Counts `start..<end` against `subject`; a backwards or empty stretch (the clock was set back) counts nothing.
    mutating func add(from start: Date, to end: Date, _ subject: PracticeSubject) {
        var from = start
        while from < end {
            let until = min(end, calendar.nextMidnight(after: from))
            pending[Key(day: calendar.day(from), subject: subject), default: 0] += until.timeIntervalSince(from)
            from = until
        }
    }

    /// Hands the pending time over and forgets it.
    mutating func take() -> [Key: Double] {
        defer { pending.removeAll() }
        return pending
    }

    /// Puts back time that could not be written (added to what came since).
    mutating func restore(_ rows: [Key: Double]) {
        pending.merge(rows, uniquingKeysWith: +)
    }
}
