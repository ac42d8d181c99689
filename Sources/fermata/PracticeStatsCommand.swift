import ArgumentParser
import FermataCore
import Foundation

/// `fermata practice [--week] [--day YYYY-MM-DD]`: time actually played, in total, per track and per A–B loop region;
/// today and this week by default. `--chart [--days N]`: the last N days (7) up to today (or --day) as a bar chart,
/// minutes per day, with the most practised tracks and sections of those days. `--csv [--days N]`: one row per day,
/// track and loop region (with its section's name) for a spreadsheet.
struct PracticeStatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "practice", abstract: "Show practice time: today and this week, per track and per loop.")
    @OptionGroup var connection: ConnectionOptions
    @Flag(help: "Only the week (this week, or the one holding --day).") var week = false
    @Option(help: "A day, YYYY-MM-DD, instead of today.") var day: String?
    @Flag(help: "A bar chart of the last days (minutes per day) and the most practised tracks.") var chart = false
    @Flag(help: "Comma-separated values, one row per day, track and loop or section, for a spreadsheet.") var csv = false
    @Option(help: "With --chart or --csv: how many days, ending today or at --day (1-366).") var days = 7

    func validate() throws {
        if let day, day.split(separator: "-").map(\.count) != [4, 2, 2] || (chart && Self.date(day) == nil) {
            throw ValidationError("--day must be YYYY-MM-DD")
        }
        guard (1...366).contains(days) else { throw ValidationError("--days must be 1-366") }
        if (chart || csv) && week { throw ValidationError("--chart and --csv go by days; leave out --week") }
        if chart && csv { throw ValidationError("--chart or --csv, not both") }
        if csv, let day, Self.date(day) == nil { throw ValidationError("--day must be YYYY-MM-DD") }
    }

    func run() throws {
        if chart { return try drawChart() }
        if csv { return try writeCSV() }
        let requests: [String] = switch (week, day) {
        case (false, nil): ["practice today", "practice week"]
        case (true, nil): ["practice week"]
        case let (false, day?): ["practice day \(day)"]
        case let (true, day?): ["practice week \(day)"]
        }
        try withConnection(connection) { client in
            print(try requests.map { Self.human(try client.command($0)) }.joined(separator: "\n"), terminator: "")
        }
    }

    /// The report as text: a heading with the total, then one line per track and one per loop under it.
    static func human(_ pairs: [(key: String, value: String)]) -> String {
        let head = dictionary(Array(pairs.prefix { $0.key != "file" }))
        let from = head["from"] ?? "?", to = head["to"] ?? "?"
        let title = switch head["period"] {
        case "today": "Today (\(from))"
        case "week": "This week (\(from) to \(to))"
        case let period? where period.hasPrefix("week"): "Week \(from) to \(to)"
        default: from
        }
        var out = "\(title): \(duration(Double(head["total"] ?? "") ?? 0))\n"
        for group in groups(pairs) {
            let seconds = duration(Double(group["seconds"] ?? "") ?? 0)
            let pad = String(repeating: " ", count: max(0, 12 - seconds.count))
            if let start = group["loop_start"].flatMap(Double.init), let end = group["loop_end"].flatMap(Double.init) {
                let loop = "loop \(clock(start, millis: true))-\(clock(end, millis: true))"
                out += "    \(pad)\(seconds)  " + (group["section"].map { "\($0) (\(loop))" } ?? loop)
                    + reached(group["tempo_reached"], today: head["to"]) + "\n"
            } else {
                let name = [group["Title"], group["Artist"]].compactMap { $0 }.joined(separator: " - ")
                out += "  \(pad)\(seconds)  \(name.isEmpty ? group["file"] ?? "?" : name)\n"
            }
        }
        if groups(pairs).isEmpty { out += "  nothing played\n" }
        return out
    }

    /// Asks for each day's report and prints the chart (eighth-block bars on a terminal, `#` otherwise).
    func drawChart() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        let end = day.flatMap(Self.date) ?? Date()
        let dates = (0..<days).reversed().compactMap { calendar.date(byAdding: .day, value: -$0, to: end) }
        let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        try withConnection(connection) { client in
            var chartDays: [PracticeChart.Day] = []
            var tracks: [String: Double] = [:]
            for date in dates {
                let parts = calendar.dateComponents([.year, .month, .day, .weekday], from: date)
                let text = String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
                let pairs = try client.command("practice day \(text)")
                let total = Double(dictionary(Array(pairs.prefix { $0.key != "file" }))["total"] ?? "") ?? 0
                chartDays.append(.init(date: text, weekday: names[((parts.weekday ?? 1) - 1) % 7], seconds: total))
                var track = ""
                for group in Self.groups(pairs) {
                    if group["loop_start"] == nil {
                        let name = [group["Title"], group["Artist"]].compactMap { $0 }.joined(separator: " - ")
                        track = name.isEmpty ? group["file"] ?? "?" : name
                        tracks[track, default: 0] += Double(group["seconds"] ?? "") ?? 0
                    } else if let section = group["section"] {
                        // A section's time, under its track (it is part of the track's time, not added to it).
                        tracks["\(track) › \(section)", default: 0] += Double(group["seconds"] ?? "") ?? 0
                    }
                }
            }
            let chart = PracticeChart(days: chartDays, tracks: tracks.map { ($0.key, $0.value) })
            print(chart.render(terminal: isatty(STDOUT_FILENO) == 1), terminator: "")
        }
    }

    /// One row per day, track and loop region: `day,file,title,artist,section,loop_start,loop_end,seconds` (a track's
    /// row leaves the loop columns empty; its loops' rows follow it), RFC 4180 quoting.
    func writeCSV() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        let end = day.flatMap(Self.date) ?? Date()
        let dates = (0..<days).reversed().compactMap { calendar.date(byAdding: .day, value: -$0, to: end) }
        print(PracticeCSV.header)
        try withConnection(connection) { client in
            for date in dates {
                let parts = calendar.dateComponents([.year, .month, .day], from: date)
                let text = String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
                var track: [String: String] = [:]
                for group in Self.groups(try client.command("practice day \(text)")) {
                    if group["loop_start"] == nil { track = group }
                    let fields = [text, group["file"], track["Title"], track["Artist"], group["section"], group["loop_start"],
                                  group["loop_end"], group["seconds"]]
                    print(PracticeCSV.row(fields))
                }
            }
        }
    }

    /// Noon of a `YYYY-MM-DD` local day (noon: far from any daylight-saving jump), or nil.
    static func date(_ text: String) -> Date? {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        let components = DateComponents(year: parts[0], month: parts[1], day: parts[2], hour: 12)
        guard let date = calendar.date(from: components),
              calendar.dateComponents([.year, .month, .day], from: date) == DateComponents(year: parts[0], month: parts[1], day: parts[2])
        else { return nil }
        return date
    }

    /// The `file:`-led groups.
    static func groups(_ pairs: [(key: String, value: String)]) -> [[String: String]] {
        var groups: [[String: String]] = []
        for (key, value) in pairs.drop(while: { $0.key != "file" }) {
            if key == "file" { groups.append([:]) }
            // `tempo_reached` comes once per day: kept in order, separated by commas.
            if key == "tempo_reached", let before = groups[groups.count - 1][key] {
                groups[groups.count - 1][key] = before + "," + value
            } else {
                groups[groups.count - 1][key] = value
            }
        }
        return groups
    }

    /// ": 85 % on Mon 11-16, 95 % today" from `tempo_reached` values (`YYYY-MM-DD PERCENT`, comma-separated); empty
    /// with none. `today`: the report's last day.
    static func reached(_ values: String?, today: String?) -> String {
        guard let values else { return "" }
        let days = values.split(separator: ",").compactMap { value -> String? in
            let parts = value.split(separator: " ")
            guard parts.count == 2, let percent = Int(parts[1]) else { return nil }
            let day = String(parts[0])
            if day == today { return "\(percent) % today" }
            let name = weekday(of: day).map { "\($0) " } ?? ""
            return "\(percent) % on \(name)\(day.dropFirst(5))"
        }
        return days.isEmpty ? "" : ": " + days.joined(separator: ", ")
    }

    /// "Mon" for a `YYYY-MM-DD` day (Gregorian), nil for anything else.
    static func weekday(of day: String) -> String? {
        let parts = day.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, (1...12).contains(parts[1]), (1...31).contains(parts[2]), (1...9999).contains(parts[0])
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        guard let date = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2], hour: 12))
        else { return nil }
        let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        return names[(calendar.component(.weekday, from: date) - 1) % 7]
    }

    /// `45 s`, `12 min 03 s`, `1 h 02 min`.
    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return String(format: "%d min %02d s", whole / 60, whole % 60) }
        return String(format: "%d h %02d min", whole / 3600, whole / 60 % 60)
    }
}
