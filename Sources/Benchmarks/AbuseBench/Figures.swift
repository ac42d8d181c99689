/// One scenario's figures from one run against one daemon.
struct RunFigures: Sendable {
    var outcome: LoadOutcome
    var peaks: MemoryWatch.Peaks
    /// The daemon at rest (one track playing) right before the load: the idle its peak is held against.
    var before: MemoryReading?
    var status: StatusProbe.Seen
    /// When the load ran (monotonic seconds), for the watchdog gaps.
    var start: Double
    var end: Double
    /// The largest gap between two watchdog pings around the load (filled in once the daemon stops; nil: no pings).
    var watchdogGap: Double?
    /// How the daemon died during the load, if it did.
    var death: String?
}

/// Everything measured against one daemon.
struct DaemonFigures: Sendable {
    let kind: BenchDaemon.Kind
    /// `update` of the generated library, seconds (not a target; printed for context).
    var scanSeconds: Double?
    var songs: Int?
    /// The daemon's memory at rest (library scanned, one track playing) before the first scenario and after the last.
    var idle: MemoryReading?
    var idleAfter: MemoryReading?
    var runs: [Scenario: [RunFigures]] = [:]
    /// Whether the daemon ever sent a datagram to `$NOTIFY_SOCKET`.
    var heardWatchdog = false
    /// Things worth printing under the table (a death and its log tail, caches not dropped, …).
    var remarks: [String] = []

    init(kind: BenchDaemon.Kind) { self.kind = kind }

    /// The figures of every run of `scenario` folded into one: median time, worst everything else.
    func summary(_ scenario: Scenario) -> ScenarioSummary? {
        guard let runs = runs[scenario], !runs.isEmpty else { return nil }
        let times = runs.map(\.outcome.seconds).filter { !$0.isNaN }.sorted()
        return ScenarioSummary(
            medianSeconds: times.isEmpty ? nil : times[times.count / 2],
            runs: runs.count,
            memory: runs.compactMap { run in run.before.map { MemoryGrowth(before: $0, peaks: run.peaks) } }
                .max { $0.factor < $1.factor },
            worstStatus: runs.compactMap(\.status.worst).max(),
            statusFailure: runs.compactMap(\.status.failure).first,
            statesSeen: runs.reduce(into: Set<String>()) { $0.formUnion($1.status.states) },
            watchdogGap: runs.compactMap(\.watchdogGap).max(),
            failed: runs.contains { $0.outcome.failed || $0.death != nil },
            notes: Array(Set(runs.compactMap(\.outcome.note) + runs.compactMap(\.death))).sorted()
        )
    }
}

/// One daemon's figures for one scenario over all runs.
struct ScenarioSummary: Sendable {
    var medianSeconds: Double?
    var runs: Int
    /// The run whose peak RSS was the largest multiple of the RSS before it.
    var memory: MemoryGrowth?
    var worstStatus: Double?
    var statusFailure: String?
    var statesSeen: Set<String>
    var watchdogGap: Double?
    var failed: Bool
    var notes: [String]
}

/// A scenario's peak memory against the daemon's memory at rest right before it.
struct MemoryGrowth: Sendable {
    var before: MemoryReading
    var peaks: MemoryWatch.Peaks

    /// Peak VmRSS ÷ VmRSS before.
    var factor: Double { Double(peaks.rss) / Double(max(before.rss, 1)) }
}
