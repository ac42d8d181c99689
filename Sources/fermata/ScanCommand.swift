import ArgumentParser
import Foundation

/// `fermata scan`: starts a library scan (or follows the one already running) and shows its progress live — a bar
/// redrawn in place on a terminal, a line every few seconds otherwise — then the summary.
struct ScanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Scan the music library (or follow the scan already running), with live progress and a summary.")
    @OptionGroup var connection: ConnectionOptions
    @Flag(help: "Read every file again, not only new and changed ones.") var full = false
    @Flag(help: "Only follow a scan already running; start none.") var follow = false
    @Argument(help: "A directory of the library to scan (default: all of it).") var directory: String?

    func run() throws {
        try withConnection(connection) { client in
            var report = dictionary(try client.command("scan_status"))
            let running = ["scanning", "finishing"].contains(report["scan_phase"] ?? "")
            var job = Int(report["scan_job"] ?? "") ?? 0
            if running {
                print("following scan \(job), already running")
            } else if follow {
                for line in Self.issueLines(try client.command("scan_issues")) { print(line) }
                print("no scan is running; the last one: " + Self.summary(report))
                return
            } else {
                let verb = full ? "rescan" : "update"
                let target = directory.map { " " + ControlConnection.quote($0) } ?? ""
                job = Int(dictionary(try client.command(verb + target))["updating_db"] ?? "") ?? job + 1
            }
            let live = isatty(STDOUT_FILENO) == 1
            var lastPrinted: ContinuousClock.Instant?  // monotonic: a clock step must not stop or flood the lines
            while true {
                report = dictionary(try client.command("scan_status"))
                let phase = report["scan_phase"] ?? "?"
                let current = Int(report["scan_job"] ?? "") ?? 0
                if current >= job, !["scanning", "finishing"].contains(phase) { break }
                if live || lastPrinted.map({ ContinuousClock.now - $0 >= .seconds(5) }) ?? true {
                    let line = Self.progressLine(report)
                    if live { print("\r" + line.padding(toLength: 78, withPad: " ", startingAt: 0), terminator: "") } else { print(line) }
                    fflush(nil)  // all streams: stdout itself is not concurrency-safe to name
                    lastPrinted = .now
                }
                usleep(200_000)
            }
            if live { print("\r" + String(repeating: " ", count: 78) + "\r", terminator: "") }
            guard report["scan_phase"] == "finished", report["last_job"] == String(job) else {
                FileHandle.standardError.write(Data("fermata: scan \(job) ended \(report["scan_phase"] ?? "?")\n".utf8))
                throw ExitCode(ExitStatus.refused)
            }
            // The files not indexed first, the summary last (scripts read the last line).
            for line in Self.issueLines(try client.command("scan_issues")) { print(line) }
            print("scan \(job) done: " + Self.summary(report))
        }
    }

    /// The files the library holds issues for, grouped by reason ("3 files: WMA is not a format Fermata plays …"),
    /// at most `shown` paths under each, so no file is passed over in silence.
    static func issueLines(_ pairs: [(key: String, value: String)], shown: Int = 5) -> [String] {
        var groups: [String: [String]] = [:], order: [String] = []
        var path = "", kind = ""
        for (key, value) in pairs {
            switch key {
            case "file": path = value
            case "issue": kind = value
            case "reason":
                // Reasons name the file first ("unsupported file PATH: why"); group by the part after it.
                let why = value.range(of: path + ": ").map { String(value[$0.upperBound...]) } ?? value
                let group = kind + ": " + why
                if groups[group] == nil { order.append(group) }
                groups[group, default: []].append(path)
            default: break
            }
        }
        var lines: [String] = []
        for group in order {
            let paths = groups[group] ?? []
            lines.append("\(paths.count) file\(paths.count == 1 ? "" : "s") \(group)")
            for path in paths.prefix(shown) { lines.append("    " + path) }
            if paths.count > shown { lines.append("    … and \(paths.count - shown) more") }
        }
        return lines
    }

    /// "scanning: 1234 files seen, 56 read, 0 problems, 2.5 s [######....]" (the bar turns while files are seen).
    static func progressLine(_ report: [String: String]) -> String {
        let seen = Int(report["scan_files_seen"] ?? "") ?? 0
        let read = report["scan_files_read"] ?? "0", errors = report["scan_errors"] ?? "0"
        let elapsed = Double(report["scan_elapsed"] ?? "") ?? 0
        let spinner = Array("|/-\\")[seen / 50 % 4]
        return "\(report["scan_phase"] ?? "?") \(spinner) \(seen) files seen, \(read) read, \(errors) problems, "
            + String(format: "%.1f s", elapsed)
    }

    /// "12 added, 0 updated, 1 removed, 0 restored, 2 issues; 2000 tracks in 0.524 s (incremental)".
    static func summary(_ report: [String: String]) -> String {
        guard let seconds = report["last_seconds"] else { return "none since fermatad started" }
        func n(_ key: String) -> String { report["last_" + key] ?? "0" }
        return "\(n("added")) added, \(n("updated")) updated, \(n("removed")) removed, \(n("restored")) restored, "
            + "\(n("issues")) issues; \(n("tracks")) tracks in \(seconds) s (\(report["last_mode"] ?? "?"))"
    }
}
