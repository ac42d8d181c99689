import ArgumentParser
import Foundation

/// `fermata practice [--week] [--day YYYY-MM-DD]`: time actually played, in total, per track and per A–B loop region;
/// today and this week by default.
struct PracticeStatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "practice", abstract: "Show practice time: today and this week, per track and per loop.")
    @OptionGroup var connection: ConnectionOptions
    @Flag(help: "Only the week (this week, or the one holding --day).") var week = false
    @Option(help: "A day, YYYY-MM-DD, instead of today.") var day: String?

    func validate() throws {
        if let day, day.split(separator: "-").map(\.count) != [4, 2, 2] {
            throw ValidationError("--day must be YYYY-MM-DD")
        }
    }

    func run() throws {
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
                out += "    \(pad)\(seconds)  loop \(clock(start, millis: true))-\(clock(end, millis: true))\n"
            } else {
                let name = [group["Title"], group["Artist"]].compactMap { $0 }.joined(separator: " - ")
                out += "  \(pad)\(seconds)  \(name.isEmpty ? group["file"] ?? "?" : name)\n"
            }
        }
        if groups(pairs).isEmpty { out += "  nothing played\n" }
        return out
    }

    /// The `file:`-led groups.
    static func groups(_ pairs: [(key: String, value: String)]) -> [[String: String]] {
        var groups: [[String: String]] = []
        for (key, value) in pairs.drop(while: { $0.key != "file" }) {
            if key == "file" { groups.append([:]) }
            groups[groups.count - 1][key] = value
        }
        return groups
    }

    /// `45 s`, `12 min 03 s`, `1 h 02 min`.
    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return String(format: "%d min %02d s", whole / 60, whole % 60) }
        return String(format: "%d h %02d min", whole / 3600, whole / 60 % 60)
    }
}
