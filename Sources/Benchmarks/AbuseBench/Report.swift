import Foundation

/// Issue 13's targets, which fermatad must meet (MPD's figures are the yardstick, not judged).
enum Targets {
    /// Time ≤ MPD's × 1.0 + 10 ms.
    static let timeFactor = 1.0
    static let timeAllowance = 0.010
    /// Peak RSS during a scenario ≤ 1.3 × the RSS at rest right before it (memory kept from one scenario to the
    /// next shows in the idle line, before the first scenario and after the last).
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
        out.append("each daemon plays one looping track (repeat + single) to a paced null output during every scenario")
        out.append("at rest, playing, before the first scenario → after the last:")
        out += [fermatad, mpd].compactMap { $0 }.map { "  " + idleText($0) }
        out.append("library scan (`update`, no target): " + [fermatad, mpd].compactMap { $0 }
            .map { "\($0.kind.rawValue) \(duration($0.scanSeconds ?? .nan)) (\($0.songs ?? 0) songs)" }
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
                if summary.statesSeen != ["play"] && !summary.statesSeen.isEmpty {
                    lines.append("\(figures.kind.rawValue): not always playing: state " + summary.statesSeen.sorted().joined(separator: ", "))
                }
                return lines
            }
            if !lines.isEmpty { notes[rows.count - 1] = lines }
        }
        rows.append(["all scenarios", "RSS kept", kept(fermatad), mpd.map(kept) ?? "—", "≤ 1.3× idle at start",
                     verdict(keptFactor(fermatad), limit: Targets.rssFactor)])
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
        let name = figures.kind.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)
        guard let idle = figures.idle else { return "\(name) —" }
        let after = figures.idleAfter
        return "\(name) VmRSS \(mebibytes(idle.rss)) → \(after.map { mebibytes($0.rss) } ?? "—"), "
            + "RssAnon \(mebibytes(idle.anon)) → \(after.map { mebibytes($0.anon) } ?? "—")"
    }

    /// The rows (measure, fermatad, MPD, target, result) of one scenario.
    private func measures(_ ours: ScenarioSummary?, _ theirs: ScenarioSummary?) -> [[String]] {
        var rows: [[String]] = []
        // Time.
        let ourTime = ours?.medianSeconds
        let theirTime = theirs?.medianSeconds
        let timeLimit = theirTime.map { $0 * Targets.timeFactor + Targets.timeAllowance }
        rows.append(["time", seconds(ourTime, failed: ours?.failed), seconds(theirTime, failed: theirs?.failed),
                     timeLimit.map { "≤ \(duration($0)) (MPD + 10 ms)" } ?? "MPD + 10 ms",
                     verdict(ourTime, limit: timeLimit, failed: ours?.failed == true)])
        // Memory.
        rows.append(["peak RSS", memory(ours), memory(theirs), "≤ 1.3× RSS before",
                     verdict(ours?.memory?.factor, limit: Targets.rssFactor)])
        // The bystander.
        rows.append(["worst status", ours?.worstStatus.map(duration) ?? "—", theirs?.worstStatus.map(duration) ?? "—", "≤ 50 ms",
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
        return duration(value) + (failed == true ? " (failed)" : "")
    }

    /// "1.29× = 86.3 MiB (anon 40.9 MiB)": the worst run's peak VmRSS against the VmRSS before it.
    private func memory(_ summary: ScenarioSummary?) -> String {
        guard let growth = summary?.memory else { return "—" }
        return String(format: "%.2f× = ", growth.factor) + mebibytes(growth.peaks.rss)
            + " (anon \(mebibytes(growth.peaks.anon)))"
    }

    /// VmRSS at rest after the last scenario ÷ VmRSS at rest before the first: memory the scenarios left behind.
    private func keptFactor(_ figures: DaemonFigures) -> Double? {
        guard let idle = figures.idle, let after = figures.idleAfter else { return nil }
        return Double(after.rss) / Double(max(idle.rss, 1))
    }

    private func kept(_ figures: DaemonFigures) -> String {
        guard let factor = keptFactor(figures), let after = figures.idleAfter else { return "—" }
        return String(format: "%.2f× = ", factor) + mebibytes(after.rss) + " (anon \(mebibytes(after.anon)))"
    }

    private func gap(_ summary: ScenarioSummary?, heard: Bool) -> String {
        guard let summary else { return "—" }
        guard let gap = summary.watchdogGap else { return heard ? "no ping" : "no pings sent" }
        return "\(format(gap, digits: 2)) s"
    }
}
