import Foundation
import Glibc
import Testing
import TestSupport

/// What `journalctl -u fermata` shows when a start fails or a stop comes early: the cause in plain words, and no
/// error that is not one.
@Suite struct StartStopMessageTests {
    /// A port another program holds: one line naming the address, the key and the reason. It used to be NIO's
    /// "bind(descriptor:ptr:bytes:): Address already in use) (errno: 98)", with no address.
    @Test func aBusyPortIsNamedWithItsKeyAndReason() async throws {
        let dir = try TemporaryDirectory(prefix: "fermata-fault-port")
        let port = TestSocket.freePort()
        let holder = try Self.listen(port: port)
        defer { close(holder) }
        let run = try await FaultDaemon.runToEnd(["--state", dir.file("state"), "--output", "null", "--music", dir.path,
                                                 "--listen", "127.0.0.1:\(port)", "--socket", ""])
        #expect(run.status == 1, "\(run)")
        let printed = run.output + run.stderr
        #expect(printed.contains("cannot listen on 127.0.0.1:\(port) (mpd.listen): Address already in use"), "\(printed)")
        #expect(!printed.contains("bind(descriptor"), "\(printed)")
        #expect(!printed.contains("cannot check the state database"), "\(printed)")
    }

    /// Stopped within its first two seconds (before the background integrity check), it logged "cannot check the state
    /// database: CancellationError()" as an error, which `journalctl -p warning` then showed as a fault.
    @Test func aStopRightAfterTheStartLogsNoError() async throws {
        let dir = try TemporaryDirectory(prefix: "fermata-fault-early-stop")
        let daemon = try await Self.answeringDaemon(in: dir)
        #expect(try await onThread { daemon.stop() } == 0, "\(daemon.log)")
        #expect(!daemon.log.contains("cannot check the state database"), "\(daemon.log)")
    }

    /// A logrotate hook written for MPD (`kill -HUP` or `-USR1` to reopen logs) ended fermatad without a log line.
    @Test func hangupAndUser1DoNotEndTheDaemon() async throws {
        let dir = try TemporaryDirectory(prefix: "fermata-fault-signals")
        let daemon = try await Self.answeringDaemon(in: dir)
        for signal in [SIGHUP, SIGUSR1] { kill(daemon.process.processIdentifier, signal) }
        // Still there, and still answering, once the signals have surely been delivered (a ping round trip after).
        let port = daemon.port
        #expect(try await onThread { try MPDTestClient(port: port).ok("ping").isOK }, "\(daemon.log)")
        #expect(daemon.isRunning, "\(daemon.log)")
        #expect(try await onThread { daemon.stop() } == 0, "\(daemon.log)")
    }

    /// fermatad on the null output with `dir` for music and state, once it answers on its port.
    static func answeringDaemon(in dir: TemporaryDirectory) async throws -> FermatadProcess {
        let daemon = try FermatadProcess(
            arguments: ["--state", dir.file("state"), "--output", "null", "--music", dir.path, "--socket", ""],
            port: TestSocket.freePort(), logPath: dir.file("fermatad.log"))
        let answering = try await onThread { daemon.waitUntilAnswering(within: Patience.stallSeconds) }
        try #require(answering == .answering, "\(daemon.log)")
        return daemon
    }

    /// A TCP socket listening on 127.0.0.1:`port`, standing for another program on that port.
    static func listen(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw FermatadProcess.Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, 1) == 0 else {
            close(fd)
            throw FermatadProcess.Failure(description: "cannot hold port \(port): errno \(errno)")
        }
        return fd
    }
}
