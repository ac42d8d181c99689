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
            let ready = try await onThread { notify.waitFor("READY=1", within: 60) }
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

/// systemd's end of `$NOTIFY_SOCKET`: a bound Unix datagram socket whose messages the test waits for.
///
/// Sendable: the descriptor is fixed at `init` and closed in `deinit`; `waitFor` is called from one thread at a time.
final class NotifySocket: Sendable {
    let path: String
    private let fd: Int32

    init(path: String) throws {
        self.path = path
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw FermatadProcess.Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw FermatadProcess.Failure(description: "\(path): too long for a Unix socket")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else {
            close(fd)
            throw FermatadProcess.Failure(description: "bind \(path): errno \(errno)")
        }
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        self.fd = fd
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// Receives messages until one has the line `line` (true) or `seconds` pass (false). Blocking.
    func waitFor(_ line: String, within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { continue }
            if String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n").contains(Substring(line)) {
                return true
            }
        }
        return false
    }
}
