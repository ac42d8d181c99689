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
        let line = run.stderr.split(separator: "\n").first { $0.contains(config) } ?? ""
        #expect(line.contains("\(config):3:") && line.contains("playback.resume"), "stderr: \(run.stderr)")
    }

    /// `--listen ":16622"` used to fail at bind time ("UnknownHost", exit 1) after the daemon had said it was ready.
    @Test func anUnusableListenAddressIsAConfigurationError() async throws {
        let dir = try TemporaryDirectory(prefix: "fermata-fault-listen")
        let run = try await FaultDaemon.runToEnd(["--state", dir.file("state"), "--output", "null", "--music", dir.path,
                                                 "--listen", ":16622", "--socket", ""])
        #expect(run.status == 78, "\(run)")
        #expect(run.stderr.contains("mpd.listen") && run.stderr.contains("the host is missing"), "stderr: \(run.stderr)")
    }

    /// A state directory under a regular file used to report "NSCocoaErrorDomain error 512".
    @Test func aStateDirectoryUnderAFileSaysWhichPathIsNotADirectory() async throws {
        let dir = try TemporaryDirectory(prefix: "fermata-fault-state")
        _ = FileManager.default.createFile(atPath: dir.file("plain"), contents: Data("x".utf8))
        let run = try await FaultDaemon.runToEnd(["--state", dir.file("plain") + "/state", "--output", "null",
                                                 "--music", dir.path, "--listen", "", "--socket", ""])
        #expect(run.status != 0, "\(run)")
        #expect(run.stderr.contains("\(dir.file("plain")) is not a directory"), "stderr: \(run.stderr)")
        #expect(!run.stderr.contains("NSCocoaErrorDomain"), "stderr: \(run.stderr)")
    }
}
