import Foundation
import Glibc
import Testing
import TestSupport

/// systemd's `READY=1` (the unit is `Type=notify`) promises a client can connect: `systemctl start fermata && mpc play`,
/// or a unit ordered after Fermata's, talks MPD at once. The test plays systemd's part (a datagram socket named in
/// `$NOTIFY_SOCKET`), freezes the daemon with SIGSTOP the moment READY=1 arrives, and connects to its TCP port and its
/// Unix socket while it cannot do anything more: both must already accept (the kernel completes the connection from
/// the listen backlog), so READY=1 came after the binds, not before them.
@Suite struct ReadinessTests {
    @Test func readyIsSentOnlyOnceTheControlPortAndSocketAcceptClients() async throws {
        let dir = try TemporaryDirectory(prefix: "fermata-ready")
        let music = dir.file("music")
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        try FLACFixture.write(path: music + "/a.flac", samples: TestSignal.sweep(frames: 22_050, channels: 1, bits: 16,
                                                                                 sampleRate: 22_050, seed: 3),
                              channels: 1, bitsPerSample: 16, sampleRate: 22_050, tags: ["TITLE": "a"])
        let notify = try NotifySocket(path: dir.file("notify"))
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = notify.path
        let socket = dir.file("mpd.sock")
        let port = TestSocket.freePort()
        // Three starts: the first on an empty state directory, then restarts on the state it left.
        for start in 0..<3 {
            let daemon = try FermatadProcess(
                arguments: ["--music", music, "--state", dir.file("state"), "--output", "null", "--socket", socket],
                port: port, logPath: dir.file("fermatad.log"), environment: environment)
            let pid = daemon.process.processIdentifier
            let ready = try await onThread { notify.waitFor("READY=1", within: Patience.stallSeconds) }
            kill(pid, SIGSTOP)
            let tcp = Result(catching: { () throws(TestSocket.Failure) in try TestSocket.connect(port: port) })
            let unix = Result(catching: { () throws(TestSocket.Failure) in try TestSocket.connect(unixPath: socket) })
            kill(pid, SIGCONT)
            #expect(ready, "start \(start): no READY=1; log:\n\(daemon.log)")
            for (name, connected) in [("TCP port", tcp), ("Unix socket", unix)] {
                switch connected {
                case let .success(fd): close(fd)
                case let .failure(error): Issue.record("start \(start): READY=1 before the \(name) accepts: \(error)")
                }
            }
            let status = try await onThread { try MPDTestClient(port: port).ok("status") }
            #expect(status["state"] != nil)
            #expect(try await onThread { daemon.stop() } == 0, "log:\n\(daemon.log)")
        }
    }
}
