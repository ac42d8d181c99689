import Foundation
import Testing
import TestSupport

/// The installed program is one: `fermata`, which is the daemon when called as `fermatad` (the package's and
/// install.sh's /usr/bin/fermatad is a link to it). Through such a link, the built `fermata` prints the daemon's
/// configuration, runs the daemon (which answers the CLI and MPD clients) and stops cleanly; called as itself, it is
/// the command-line tool.
@Suite struct MultiCallTests {
    @Test func theOneProgramIsTheDaemonWhenCalledFermatad() async throws {
        let fermata = DeployTests.binaries + "/fermata"
        try #require(FileManager.default.isExecutableFile(atPath: fermata))
        let dir = try TemporaryDirectory(prefix: "fermata-multicall")
        let link = dir.file("fermatad")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: fermata)

        let config = try await DeployTests().run(link, ["--print-default-config"])
        #expect(config.status == 0 && config.output.contains("[paths]"), "\(config.output)")
        let tool = try await DeployTests().run(fermata, ["--help"])
        #expect(tool.output.contains("command-line tool"), "\(tool.output)")

        let music = dir.file("music"), state = dir.file("state"), socket = dir.file("state/mpd.sock")
        for folder in [music, state] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        try "# multi-call test\n".write(toFile: dir.file("fermata.toml"), atomically: true, encoding: .utf8)
        let port = TestSocket.freePort()
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: link)
        daemon.arguments = ["--config", dir.file("fermata.toml"), "--music", music, "--state", state, "--output", "null",
                            "--socket", socket, "--listen", "127.0.0.1:\(port)"]
        daemon.standardOutput = FileHandle.nullDevice
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        defer { if daemon.isRunning { daemon.terminate() } }
        var answered = false
        for _ in 0..<600 where !answered {
            answered = (try? MPDTestClient(port: port).command("ping"))?.isOK == true
            if !answered { try await Task.sleep(for: .milliseconds(100)) }
        }
        try #require(answered, "the daemon started through the link answers MPD clients")
        let status = try await DeployTests().run(fermata, ["status", "--socket", socket])
        #expect(status.status == 0 && status.output.contains("stopped"), "\(status.output)")
        daemon.terminate()
        let code = try await onThread { () -> Int32 in
            daemon.waitUntilExit()
            return daemon.terminationStatus
        }
        #expect(code == 0, "fermatad (fermata through the link) after SIGTERM")
    }
}
