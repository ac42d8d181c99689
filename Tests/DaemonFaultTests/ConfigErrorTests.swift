import Foundation
import Testing
import TestSupport

/// A bad configuration file stops fermatad at once with exit status 78 (EX_CONFIG) and one line naming the file, the
/// line and the key, so `systemctl status fermata` says what to fix.
@Suite struct ConfigErrorTests {
    @Test func badValueExitsWith78NamingFileLineAndKey() async throws {
        let dir = try TemporaryDirectory(prefix: "fermata-fault-config")
        let config = dir.file("fermata.toml")
        try "# a test configuration\n[playback]\nresume = \"sometimes\"\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        let run = try await FaultDaemon.runToEnd(["--config", config, "--state", dir.file("state"), "--output", "null",
                                                 "--listen", "", "--socket", ""])
        #expect(run.status == 78, "\(run)")
        let line = run.errors.split(separator: "\n").first { $0.contains(config) } ?? ""
        #expect(line.contains("\(config):3:") && line.contains("playback.resume"), "stderr: \(run.errors)")
    }
}
