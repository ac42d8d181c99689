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

    /// A connected client, retrying while the daemon starts (at most 20 s), on a thread of its own.
    func connected() async throws -> MPDTestClient {
        try await onThread { [self] in try connect(within: 20) }
    }
}

/// Runs the sqlite3 command-line tool on `database` (the test reads the file between a kill and the restart).
func sqlite(_ database: String, _ sql: String) -> String {
    guard let result = try? ProgramResult.run("/usr/bin/sqlite3", [database, sql]) else { return "sqlite3 missing" }
    return (result.output + result.stderr).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// Waits until the daemon's scan has finished (`updating_db` gone from `status`), at most 60 s.
func waitForScan(_ client: MPDTestClient) async throws {
    let deadline = ContinuousClock.now + .seconds(60)
    while try client.ok("status")["updating_db"] != nil, ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(10))
    }
}
