import AudioCore
import Foundation

/// Runs every scenario against one daemon: starts it, has it scan the library, then for each run and scenario
/// queues one looping track and plays it (so the audio path is live), drops the page cache when asked, and runs the
/// load while the status prober and the memory watch look on. A daemon that dies is recorded with its log tail and
/// started again. Stops the daemon at the end, after the watchdog ping that closes the last scenario's gap.
///
/// Threads: one user.
struct DaemonSession {
    let daemon: BenchDaemon
    let uris: [String]
    let runs: Int
    /// Where the daemon's logs are copied at the end.
    let logDirectory: String
    /// Prints one line of progress.
    let progress: (String) -> Void

    func run() -> DaemonFigures {
        var figures = DaemonFigures(kind: daemon.kind)
        let receiving = daemon.watchdog.start()
        defer {
            daemon.watchdog.stopReceiving()
            receiving.join()
        }
        do {
            try daemon.start()
            (figures.scanSeconds, figures.songs) = try scan()
            progress("\(name): library scanned: \(figures.songs ?? 0) songs in \(duration(figures.scanSeconds ?? .nan))")
            try preparePlayback()
            MonotonicClock.sleep(seconds: 1.0)
            figures.idle = MemoryReading.of(daemon.pid)
            // The first ping, so that every scenario's gap has a ping before it (both ping every 5 s).
            if !daemon.watchdog.waitForPing(after: 0, timeout: 6) {
                figures.remarks.append("\(name): no watchdog ping within 6 s of starting")
            }
        } catch {
            figures.remarks.append("\(name) could not be set up: \(error)")
            figures.remarks += daemon.logTail(15).map { "    " + $0 }
            daemon.stop()
            figures.remarks.append("\(name) logs: " + daemon.archiveLogs(to: logDirectory).joined(separator: ", "))
            return figures
        }
        var abandoned = Set<Scenario>()
        for run in 1...runs {
            for scenario in Scenario.allCases where !abandoned.contains(scenario) {
                guard let result = measure(scenario, figures: &figures) else { continue }
                figures.runs[scenario, default: []].append(result)
                progress("\(name) run \(run): \(scenario.title): " + describe(result))
                if result.outcome.timedOut {
                    abandoned.insert(scenario)
                    figures.remarks.append("\(name): \(scenario.title) timed out; not run again")
                }
            }
        }
        let lastEnd = figures.runs.values.flatMap { $0 }.map(\.end).max() ?? MonotonicClock.seconds()
        _ = daemon.watchdog.waitForPing(after: lastEnd, timeout: 11)  // closes the last scenario's gap; a rest too
        if daemon.exitDescription == nil { figures.idleAfter = MemoryReading.of(daemon.pid) }
        daemon.stop()
        let logs = daemon.archiveLogs(to: logDirectory)
        if figures.runs.values.joined().contains(where: { $0.death != nil }) {
            figures.remarks.append("\(name) logs: " + logs.joined(separator: ", "))
        }
        figures.heardWatchdog = daemon.watchdog.heardAnything
        let pings = daemon.watchdog.pingTimes
        let now = MonotonicClock.seconds()
        for (scenario, list) in figures.runs {
            figures.runs[scenario] = list.map { result in
                var result = result
                result.watchdogGap = WatchdogListener.largestGap(in: pings, from: result.start, to: result.end, now: now)
                return result
            }
        }
        return figures
    }

    private var name: String { daemon.kind.rawValue }

    /// One load with its bystanders; nil when the daemon could not even be prepared (recorded in the remarks).
    private func measure(_ scenario: Scenario, figures: inout DaemonFigures) -> RunFigures? {
        do {
            try ensureRunning(figures: &figures)
            try preparePlayback()
        } catch {
            figures.remarks.append("\(name): \(scenario.title): not run: \(error)")
            return nil
        }
        if scenario.dropsCaches, let failure = PageCache.drop() {
            let remark = "\(name): \(scenario.title): the page cache was NOT dropped: \(failure)"
            if !figures.remarks.contains(remark) { figures.remarks.append(remark) }
        }
        let probe: StatusProbe
        do { probe = try StatusProbe(port: daemon.port) } catch {
            figures.remarks.append("\(name): \(scenario.title): the status prober could not connect: \(error)")
            return nil
        }
        let before = MemoryReading.of(daemon.pid)
        let memory = MemoryWatch(pid: daemon.pid)
        let start = MonotonicClock.seconds()
        let outcome = scenario.load(port: daemon.port, uris: uris)
        let end = MonotonicClock.seconds()
        let seen = probe.finish()
        let peaks = memory.finish()
        var result = RunFigures(outcome: outcome, peaks: peaks, before: before, status: seen, start: start, end: end)
        if let death = daemon.exitDescription {
            result.death = "\(name) \(death)"
            figures.remarks.append("\(name) \(death) during \(scenario.title); its log ends:")
            figures.remarks += daemon.logTail(15).map { "    " + $0 }
        }
        return result
    }

    /// Starts the daemon again after a death, rescanning if its database did not survive.
    private func ensureRunning(figures: inout DaemonFigures) throws {
        guard daemon.exitDescription != nil else { return }
        progress("\(name): starting it again")
        try daemon.start()
        let control = try daemon.connect()
        let songs = Int(try control.command("stats").value("songs") ?? "") ?? 0
        if songs < uris.count { _ = try scan() }
    }

    /// `update`, then waits until the daemon says it is done. Returns the seconds and the songs it found.
    private func scan() throws -> (Double, Int) {
        let control = try daemon.connect()
        let start = MonotonicClock.seconds()
        try control.command("update")
        var songs = 0
        var lastChange = start
        while MonotonicClock.seconds() - start < 300 {
            let counted = Int(try control.command("stats").value("songs") ?? "") ?? 0
            let updating = try control.command("status").value("updating_db") != nil
            if counted != songs { (songs, lastChange) = (counted, MonotonicClock.seconds()) }
            if !updating && (songs >= uris.count || MonotonicClock.seconds() - lastChange > 3) { break }
            MonotonicClock.sleep(seconds: 0.02)
        }
        return (MonotonicClock.seconds() - start, songs)
    }

    /// An empty queue but for one track, repeated on its own (`repeat` + `single`), playing.
    private func preparePlayback() throws {
        let control = try daemon.connect()
        try control.command("clear")
        try control.command("add \(quoted(uris[0]))")
        try control.command("repeat 1")
        try control.command("single 1")
        try control.command("play 0")
        let deadline = MonotonicClock.seconds() + 10
        while try control.command("status").value("state") != "play" {
            guard MonotonicClock.seconds() < deadline else { throw MPDConnection.Failure(description: "never reached play") }
            MonotonicClock.sleep(seconds: 0.01)
        }
    }

    private func describe(_ result: RunFigures) -> String {
        var text = "\(duration(result.outcome.seconds)), RSS \(mebibytes(result.before?.rss ?? 0)) → peak "
            + "\(mebibytes(result.peaks.rss)) (anon \(mebibytes(result.before?.anon ?? 0)) → \(mebibytes(result.peaks.anon))), "
            + "worst status " + (result.status.worst.map(duration) ?? "none")
        if let note = result.outcome.note { text += "; " + note }
        if let failure = result.status.failure { text += "; prober: " + failure }
        if let death = result.death { text += "; " + death }
        return text
    }
}

/// Seconds as milliseconds below one second, as seconds above.
func duration(_ seconds: Double) -> String {
    seconds.isNaN ? "—" : seconds < 1 ? String(format: "%.1f ms", seconds * 1000) : String(format: "%.3f s", seconds)
}

func format(_ value: Double, digits: Int = 3) -> String {
    value.isNaN ? "—" : String(format: "%.\(digits)f", value)
}

/// KiB as MiB with one decimal.
func mebibytes(_ kibibytes: Int) -> String { String(format: "%.1f MiB", Double(kibibytes) / 1024) }
