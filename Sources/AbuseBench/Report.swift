import Foundation

/// Issue 13's targets, which fermatad must meet (MPD's figures are the yardstick, not judged).
enum Targets {
    /// Time ≤ MPD's × 1.0 + 10 ms.
    static let timeFactor = 1.0
    static let timeAllowance = 0.010
    /// Peak RSS during a scenario ≤ 1.3 × idle RSS.
    static let rssFactor = 1.3
    /// Worst `status` round trip seen by another client.
    static let statusSeconds = 0.050
    /// Largest gap between watchdog pings: half of WatchdogSec (10 s). fermatad pings every WATCHDOG_USEC / 2, so
    /// the nominal gap is exactly 5 s; a timer's slack on top is not a miss.
    static let watchdogSeconds = 5.0
    static let watchdogSlack = 0.1
}

/// The side-by-side table: one block per scenario, one row per measure, the target and PASS/MISS beside.
struct Report {
    let fermatad: DaemonFigures
    let mpd: DaemonFigures?
    let tracks: Int
    let runs: Int

    var lines: [String] {
        var out: [String] = []
        out.append("")
        out.append("fermata-abuse-bench: \(tracks) tracks, \(runs) run(s) per scenario; time = median of the runs, "
                   + "everything else = worst of the runs")
        out.append("both daemons play one looping track (repeat + single) with a paced null output during every scenario")
        out.append("idle (library scanned, playing): " + [fermatad, mpd].compactMap { $0 }.map(idleText).joined(separator: " · "))
        out.append("library scan (`update`, no target): " + [fermatad, mpd].compactMap { $0 }
            .map { "\($0.kind.rawValue) \(format($0.scanSeconds ?? .nan, digits: 2)) s (\($0.songs ?? 0) songs)" }
            .joined(separator: " · "))
        out.append("")
        let header = ["scenario", "measure", "fermatad", mpd == nil ? "MPD (not run)" : "MPD", "target", "result"]
        var rows: [[String]] = [header]
        var notes: [Int: [String]] = [:]
        for scenario in Scenario.allCases {
            let ours = fermatad.summary(scenario)
            let theirs = mpd?.summary(scenario)
            for (index, row) in measures(ours, theirs).enumerated() {
                rows.append([index == 0 ? scenario.title : ""] + row)
            }
            let lines = [(fermatad, ours), (mpd, theirs)].flatMap { figures, summary -> [String] in
                guard let figures, let summary else { return [] }
                var lines = summary.notes.map { "\(figures.kind.rawValue): \($0)" }
                if let failure = summary.statusFailure { lines.append("\(figures.kind.rawValue): status prober: \(failure)") }
                return lines
            }
            if !lines.isEmpty { notes[rows.count - 1] = lines }
        }
        let widths = (0..<header.count).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for (index, row) in rows.enumerated() {
            out.append(zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
                .joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression))
            if index == 0 { out.append(String(repeating: "-", count: widths.reduce(0, +) + 2 * (widths.count - 1))) }
            for note in notes[index] ?? [] { out.append("    ↳ " + note) }
        }
        let remarks = [fermatad, mpd].compactMap { $0 }.flatMap(\.remarks)
        if !remarks.isEmpty {
            out.append("")
            out.append("remarks:")
            out += remarks.map { "  " + $0 }
        }
        if !fermatad.heardWatchdog { out.append("fermatad sent nothing to $NOTIFY_SOCKET: no watchdog figures") }
        return out
    }

    private func idleText(_ figures: DaemonFigures) -> String {
        guard let idle = figures.idle else { return "\(figures.kind.rawValue) —" }
        return "\(figures.kind.rawValue) VmRSS \(mebibytes(idle.rss)) (anon \(mebibytes(idle.anon)))"
    }

    /// The rows (measure, fermatad, MPD, target, result) of one scenario.
    private func measures(_ ours: ScenarioSummary?, _ theirs: ScenarioSummary?) -> [[String]] {
        var rows: [[String]] = []
        // Time.
        let ourTime = ours?.medianSeconds
        let theirTime = theirs?.medianSeconds
        let timeLimit = theirTime.map { $0 * Targets.timeFactor + Targets.timeAllowance }
        rows.append(["time", seconds(ourTime, failed: ours?.failed), seconds(theirTime, failed: theirs?.failed),
                     timeLimit.map { "≤ \(format($0)) s (MPD + 10 ms)" } ?? "MPD + 10 ms",
                     verdict(ourTime, limit: timeLimit, failed: ours?.failed == true)])
        // Memory.
        let idle = fermatad.idle?.rss
        let rssLimit = idle.map { Int(Double($0) * Targets.rssFactor) }
        rows.append(["peak RSS", memory(ours), memory(theirs),
                     rssLimit.map { "≤ \(mebibytes($0)) (1.3× idle)" } ?? "1.3× idle",
                     verdict(ours.map { Double($0.peakRSS) }, limit: rssLimit.map(Double.init))])
        // The bystander.
        rows.append(["worst status", milliseconds(ours?.worstStatus), milliseconds(theirs?.worstStatus), "≤ 50 ms",
                     verdict(ours?.worstStatus, limit: Targets.statusSeconds, failed: ours?.statusFailure != nil)])
        // The watchdog.
        rows.append(["watchdog gap", gap(ours, heard: fermatad.heardWatchdog), gap(theirs, heard: mpd?.heardWatchdog ?? false),
                     "≤ 5 s (+0.1 s slack)",
                     verdict(ours?.watchdogGap, limit: Targets.watchdogSeconds + Targets.watchdogSlack)])
        return rows
    }

    private func verdict(_ value: Double?, limit: Double?, failed: Bool = false) -> String {
        if failed { return "MISS" }
        guard let value, let limit else { return value == nil ? "—" : "n/a" }
        return value <= limit ? "PASS" : "MISS"
    }

    private func seconds(_ value: Double?, failed: Bool?) -> String {
        guard let value else { return failed == true ? "failed" : "—" }
        return "\(format(value)) s" + (failed == true ? " (failed)" : "")
    }

    private func milliseconds(_ value: Double?) -> String { value.map { "\(format($0 * 1000, digits: 1)) ms" } ?? "—" }

    private func memory(_ summary: ScenarioSummary?) -> String {
        guard let summary else { return "—" }
        return "\(mebibytes(summary.peakRSS)) (anon \(mebibytes(summary.peakAnon)))"
    }

    private func gap(_ summary: ScenarioSummary?, heard: Bool) -> String {
        guard let summary else { return "—" }
        guard let gap = summary.watchdogGap else { return heard ? "no ping" : "no pings sent" }
        return "\(format(gap, digits: 2)) s"
    }
}
