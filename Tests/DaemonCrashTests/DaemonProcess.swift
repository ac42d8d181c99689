import Foundation
import TestSupport

extension FermatadProcess {
    /// fermatad as the crash tests run it: the null output, no Unix socket, resuming paused, a position checkpoint
    /// every second, its log appended to `log` across restarts.
    static func forCrashTest(music: String, state: String, port: Int, log: String) throws -> FermatadProcess {
        try FermatadProcess(arguments: ["--music", music, "--state", state, "--output", "null", "--socket", "",
                                        "--resume", "paused", "--checkpoint-interval", "1"],
                            port: port, logPath: log)
    }

    /// A connected client, retrying while the daemon starts (at most `Patience.stallSeconds`, a hang detector: it
    /// was 20 s, near the slowest start seen under load), on a thread of its own.
    func connected() async throws -> MPDTestClient {
        try await onThread { [self] in try connect() }
    }
}

/// Runs the sqlite3 command-line tool on `database` (the test reads the file between a kill and the restart).
func sqlite(_ database: String, _ sql: String) -> String {
    guard let result = try? ProgramResult.run("/usr/bin/sqlite3", [database, sql]) else { return "sqlite3 missing" }
    return (result.output + result.stderr).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// Waits until the daemon's scan has finished (`updating_db` gone from `status`), at most `Patience.stall` (a hang
/// detector: the scan is CPU work in the daemon, as long as the machine's load makes it).
func waitForScan(_ client: MPDTestClient) async throws {
    let deadline = ContinuousClock.now + Patience.stall
    while try client.ok("status")["updating_db"] != nil, ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(10))
    }
}
