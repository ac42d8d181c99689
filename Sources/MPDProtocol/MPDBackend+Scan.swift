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

/// One file the scan could not index (or indexed with a repair), for Fermata's `scan_issues` command.
/// A value; any thread.
public struct ScanIssueLine: Sendable, Hashable {
    public var path: String
    /// `unsupported`, `corrupt`, `unreadable`, `empty`, … (`ScanIssue.Kind`'s raw values).
    public var kind: String
    public var reason: String

    public init(path: String, kind: String, reason: String) {
        self.path = path
        self.kind = kind
        self.reason = reason
    }
}

/// The default for backends without a library scanner (test doubles): `scan_status` and `scan_issues` answer
/// `ACK [5@0] {…} no scanner here`.
extension MPDBackend {
    public func scanReport() async throws -> ScanReport {
        throw MPDError(.unknown, "no scanner here")
    }

    public func scanIssues() async throws -> [ScanIssueLine] {
        throw MPDError(.unknown, "no scanner here")
    }
}
