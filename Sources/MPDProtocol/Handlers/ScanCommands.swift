import FermataCore

/// The library scan as Fermata reports it beyond MPD's `update`: `scan_status` and `scan_issues`.
///
/// Stateless; run on the executing command's task.
enum ScanCommands {
    /// `scan_status`: `scan_job`, `scan_phase`, `scan_files_seen`, `scan_files_read`, `scan_errors`, `scan_elapsed`
    /// (seconds), then the last finished scan's counts as `last_KEY` lines.
    static func scanStatus(_ c: inout CommandContext) async throws {
        let report = try await c.backend.scanReport()
        c.response.line("scan_job", report.job)
        c.response.line("scan_phase", report.phase)
        c.response.line("scan_files_seen", report.filesSeen)
        c.response.line("scan_files_read", report.filesRead)
        c.response.line("scan_errors", report.errors)
        c.response.line("scan_elapsed", seconds: report.elapsed)
        for (key, value) in report.lastSummary { c.response.line("last_" + key, value) }
    }

    /// `scan_issues`: for each file the library holds an issue for, `file`, `issue` (its kind) and `reason` lines;
    /// `fermata scan` and `fermata doctor` name the files Fermata cannot play from it.
    static func scanIssues(_ c: inout CommandContext) async throws {
        for issue in try await c.backend.scanIssues() {
            c.response.line("file", issue.path)
            c.response.line("issue", issue.kind)
            c.response.line("reason", issue.reason)
        }
    }
}
