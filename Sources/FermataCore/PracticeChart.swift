/// A period of practice drawn as text: one bar per day (minutes played, scaled to the busiest day) and the most
/// practised tracks of the period — a week read at a glance over SSH (`fermata practice --chart`).
///
/// Pure; callable from any thread. `terminal` draws bars with eighth-block characters; otherwise (a pipe, a file,
/// a log) with `#`, so the text stays plain ASCII apart from the names.
public struct PracticeChart: Sendable {
    /// One day: its date (`YYYY-MM-DD`), its weekday's short name and the seconds played.
    public struct Day: Sendable, Hashable {
        public var date: String
        public var weekday: String
        public var seconds: Double

        public init(date: String, weekday: String, seconds: Double) {
            self.date = date
            self.weekday = weekday
            self.seconds = seconds
        }
    }

    public var days: [Day]
    /// Tracks of the period with their seconds (any order; the chart sorts them).
    public var tracks: [(name: String, seconds: Double)]
    /// The widest bar, in character cells.
    public var width = 40
    /// How many tracks to list.
    public var topCount = 5

    public init(days: [Day], tracks: [(name: String, seconds: Double)]) {
        self.days = days
        self.tracks = tracks
    }

    /// The chart as lines of text, each ending in a newline.
    public func render(terminal: Bool) -> String {
        let total = days.reduce(0) { $0 + max(0, $1.seconds) }
        let first = days.first?.date ?? "?", last = days.last?.date ?? "?"
        var out = "Practice \(first) to \(last): \(Self.minutes(total)) in all\n"
        let busiest = days.map(\.seconds).max() ?? 0
        for day in days {
            let label = "\(day.weekday) \(day.date.suffix(5))"
            let bar = Self.bar(max(0, day.seconds), of: busiest, width: width, terminal: terminal)
            let padding = String(repeating: " ", count: max(0, width - bar.count))
            out += "\(label)  \(bar)\(padding)  \(Self.minutes(day.seconds))\n"
        }
        let top = tracks.filter { $0.seconds > 0 }.sorted { ($1.seconds, $0.name) < ($0.seconds, $1.name) }
            .prefix(topCount)
        if top.isEmpty {
            out += "Nothing played in these days.\n"
        } else {
            out += "Most practised:\n"
            for track in top {
                let time = Self.minutes(track.seconds)
                out += String(repeating: " ", count: max(0, 10 - time.count)) + time + "  \(track.name)\n"
            }
        }
        return out
    }

    /// A bar for `value` out of `maximum`: whole cells plus an eighth-block remainder on a terminal, `#` cells
    /// (rounded) otherwise; empty for nothing.
    static func bar(_ value: Double, of maximum: Double, width: Int, terminal: Bool) -> String {
        guard maximum > 0, value > 0, value.isFinite, maximum.isFinite else { return "" }
        let eighths = Int((min(1, value / maximum) * Double(width * 8)).rounded())
        guard terminal else { return String(repeating: "#", count: max(1, (eighths + 4) / 8)) }
        let partial = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"][eighths % 8]
        let bar = String(repeating: "█", count: eighths / 8) + partial
        return bar.isEmpty ? "▏" : bar
    }

    /// Whole minutes, or hours and minutes: `0 min`, `42 min`, `1 h 05 min`.
    static func minutes(_ seconds: Double) -> String {
        let whole = seconds.isFinite ? Int((max(0, seconds) / 60).rounded()) : 0
        if whole < 60 { return "\(whole) min" }
        let rest = whole % 60
        return "\(whole / 60) h " + (rest < 10 ? "0" : "") + "\(rest) min"
    }
}
