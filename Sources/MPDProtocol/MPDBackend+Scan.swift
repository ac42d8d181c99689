/// Where the library scan is, for Fermata's `scan_status` command (`fermata scan` draws its progress from it).
/// A value; any thread.
public struct ScanReport: Sendable, Equatable {
    /// The scan's job number (MPD's `updating_db`), 0 before the first scan.
    public var job = 0
    /// `idle`, `scanning`, `finishing`, `finished`, `cancelled` or `failed`.
    public var phase = "idle"
    public var filesSeen = 0
    public var filesRead = 0
    public var errors = 0
    public var elapsed = 0.0
    /// The last finished scan's counts, as `key: value` lines (`added`, `updated`, `removed`, …), when one finished.
    public var lastSummary: [(key: String, value: String)] = []

    public init() {}

    public static func == (l: Self, r: Self) -> Bool {
        l.job == r.job && l.phase == r.phase && l.filesSeen == r.filesSeen && l.filesRead == r.filesRead
            && l.errors == r.errors && l.elapsed == r.elapsed
            && l.lastSummary.map { "\($0.key)=\($0.value)" } == r.lastSummary.map { "\($0.key)=\($0.value)" }
    }
}

/// The default for backends without a library scanner (test doubles): `scan_status` answers
/// `ACK [5@0] {scan_status} no scanner here`.
extension MPDBackend {
    public func scanReport() async throws -> ScanReport {
        throw MPDError(.unknown, "no scanner here")
    }
}
