import FermataCore

/// Fermata's `practice` command: time actually played, per track and per A–B loop region.
///
/// `practice [today|week]`, `practice day YYYY-MM-DD`, `practice week YYYY-MM-DD` (the ISO week, Monday to Sunday,
/// holding that day). Answers `period`, `from`, `to` (local days) and `total` (seconds), then one group per track
/// (`file`, `Title`, `Artist`, `seconds`, the track's whole time) followed by one group per loop region of that
/// track (`file`, `loop_start`, `loop_end`, `section` when the track has a section with those ends, `seconds`, and a
/// `tempo_reached: YYYY-MM-DD PERCENT` per day with a pass heard to its end), tracks and loops most practised first.
/// Stateless; run on the executing command's task.
enum PracticeCommands {
    static func practice(_ c: inout CommandContext) async throws {
        let report = try await c.backend.practiceReport(try period(c.arguments))
        c.response.line("period", report.period)
        c.response.line("from", report.firstDay)
        c.response.line("to", report.lastDay)
        c.response.line("total", seconds: report.totalSeconds)
        for track in report.tracks {
            if c.response.isFull { break }
            c.response.line("file", track.file)
            if let title = track.title { c.response.line("Title", title) }
            if let artist = track.artist { c.response.line("Artist", artist) }
            c.response.line("seconds", seconds: track.seconds)
            for loop in track.loops {
                c.response.line("file", track.file)
                c.response.line("loop_start", seconds: loop.startSeconds)
                c.response.line("loop_end", seconds: loop.endSeconds)
                if let section = loop.section { c.response.line("section", section) }
                c.response.line("seconds", seconds: loop.seconds)
                for reached in loop.tempoReached { c.response.line("tempo_reached", "\(reached.day) \(reached.percent)") }
            }
        }
    }

    /// The period named by the arguments.
    static func period(_ arguments: [String]) throws(MPDError) -> PracticePeriod {
        switch (arguments.first, arguments.count) {
        case (nil, _), ("today", 1): return .today
        case ("week", 1): return .thisWeek
        case ("day", 2): return .day(try day(arguments[1]))
        case ("week", 2): return .week(containing: try day(arguments[1]))
        default: throw .badArgument("practice [today|week] or practice day|week YYYY-MM-DD")
        }
    }

    /// `YYYY-MM-DD` with a plausible month and day (the backend checks the calendar).
    static func day(_ text: String) throws(MPDError) -> String {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let month = Int(parts[1]), let day = Int(parts[2]), Int(parts[0]) != nil,
              (1...12).contains(month), (1...31).contains(day) else {
            throw .badArgument("day must be YYYY-MM-DD: \"\(text)\"")
        }
        return text
    }
}
