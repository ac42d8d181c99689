import Foundation
import MPDProtocol
@testable import MPDServer
import MPDTestSupport
import NIOCore
import TestSupport
import Testing

/// Issue 13, server side: nothing one client does takes the box down or locks others out. Output is cut off at the
/// per-client limit while it is produced, the Unix socket keeps its own connection budget, and wrong passwords are
/// answered ever more slowly and logged once per connection. Timing is only ever checked as a lower bound.
@Suite(.serialized) struct ClientAbuseTests {
    @Test func aCommandListOfManyPlaylistinfoIsCutOffAtTheOutputLimit() async throws {
        let backend = InMemoryBackend(library: (0..<2_000).map { index in
            SongInfo(
                uri: "big/\(index) some track name.flac",
                tags: [TagValue(.title, "Title number \(index)"), TagValue(.artist, "An Artist")], duration: 123.4)
        })
        let limit = 64 * 1024
        let harness = try await ServerHarness.start(backend: backend, configure: { $0.maxPendingOutputBytes = limit })
        let port = harness.port
        let received = try await onThread {
            // Each read may stall for `Patience.stallSeconds` (the default), not 10 s: 2,000 songs answered 200 times
            // stalled a CI machine loaded by VMs for longer (timing is never what this test checks).
            let client = try MPDTestClient.raw(port: port)
            _ = try client.readLine()
            #expect(try client.exchange("add big") == "OK\n")
            let song = try client.exchange("playlistinfo 1999").utf8.count
            try client.send("command_list_begin\n" + String(repeating: "playlistinfo\n", count: 200) + "command_list_end\n")
            return (bytes: try client.readUntilClosed().count, song: song)
        }
        #expect(received.bytes <= limit + received.song, "\(received.bytes) bytes received for a \(limit) limit")
        #expect(await harness.eventually { harness.server.connectionCount == 0 }, "the client was dropped")
        let other = try await onThread {
            let client = try MPDTestClient.raw(port: port)
            _ = try client.readLine()
            return try client.exchange("ping")
        }
        #expect(other == "OK\n")
        try await harness.stop()
    }

    @Test func tcpClientsCannotLockOutTheUnixSocket() async throws {
        let harness = try await ServerHarness.start(unixSocket: true, configure: { $0.maxConnections = 4 })
        let (port, path) = (harness.port, harness.socketPath)
        try await onThread {
            var parked: [MPDTestClient] = []
            for _ in 0..<4 {
                let client = try MPDTestClient.raw(port: port)
                #expect(try client.readLine() == "OK MPD 0.24.0")
                try client.send("idle\n")
                parked.append(client)
            }
            let refused = try MPDTestClient.raw(port: port)
            #expect(
                String(decoding: try refused.readUntilClosed(), as: UTF8.self)
                    == "ACK [52@0] {} too many connections\n")
            let admin = try MPDTestClient.raw(unixPath: path)
            #expect(try admin.readLine() == "OK MPD 0.24.0")
            #expect(try admin.exchange("status").contains("state: stop\n"))
            #expect(parked.count == 4)
        }
        try await harness.stop()
    }

    @Test func theDefaultLimitsAreAtLeastMPDs() {
        let configuration = MPDServerConfiguration()
        #expect(configuration.maxConnections >= 100)
        #expect(configuration.maxUnixSocketConnections > 0)
    }

    /// A server whose only password is `secret` (nothing allowed without it), wrong ones delayed from `first` to `cap`.
    static func passwordServer(first: TimeAmount, cap: TimeAmount, logs: LogCollector? = nil) async throws -> ServerHarness {
        try await ServerHarness.start(logs: logs) { configuration in
            configuration.session = SessionConfig(passwords: ["secret": .all], defaultPermissions: .none)
            configuration.passwordFailureDelay = first
            configuration.maxPasswordFailureDelay = cap
        }
    }

    @Test func wrongPasswordsAreDelayedMoreAndMoreAndLoggedOnce() async throws {
        let logs = LogCollector()
        let first = TimeAmount.milliseconds(50)
        let harness = try await Self.passwordServer(first: first, cap: .milliseconds(400), logs: logs)
        let port = harness.port
        let guesses = 6
        // 50 + 100 + 200 + 400 + 400 + 400 ms: each refusal waits twice the last, up to the cap.
        let minimum = Duration.milliseconds(1_550)
        let elapsed = try await onThread {
            let client = try MPDTestClient.raw(port: port)
            _ = try client.readLine()
            let started = ContinuousClock.now
            for _ in 0..<guesses {
                #expect(try client.exchange("password guess") == "ACK [3@0] {password} incorrect password\n")
            }
            let elapsed = ContinuousClock.now - started
            #expect(try client.exchange("status").hasPrefix("ACK [4@0] {status} you don't have permission"))
            #expect(try client.exchange("password secret") == "OK\n")
            #expect(try client.exchange("status").contains("state: stop\n"))
            return elapsed
        }
        #expect(elapsed >= minimum, "\(guesses) wrong passwords answered in \(elapsed)")
        let lines = logs.lines.withLock { $0 }.filter { $0.contains("wrong password") }
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first?.contains("127.0.0.1") == true)
        try await harness.stop()
    }

    @Test func pipelinedGuessesWaitTooAndReadNothingMeanwhile() async throws {
        let harness = try await Self.passwordServer(first: .milliseconds(100), cap: .seconds(1))
        let port = harness.port
        let (answers, elapsed) = try await onThread {
            let client = try MPDTestClient.raw(port: port)
            _ = try client.readLine()
            let started = ContinuousClock.now
            try client.send("password a\npassword b\npassword c\npassword secret\nping\n")
            let answers = try (0..<5).map { _ in try client.readResponse() }
            return (answers, ContinuousClock.now - started)
        }
        #expect(answers == Array(repeating: "ACK [3@0] {password} incorrect password\n", count: 3) + ["OK\n", "OK\n"])
        #expect(elapsed >= .milliseconds(700), "100 + 200 + 400 ms at least, got \(elapsed)")
        try await harness.stop()
    }

    /// Guessing on many connections at once is no faster than on one: the answers from one address go out one delay
    /// after another. It used to answer all of them within the cap (30 connections: 20 guesses a second).
    @Test func parallelGuessesFromOneAddressAreAnsweredOneAfterAnother() async throws {
        let harness = try await Self.passwordServer(first: .milliseconds(20), cap: .milliseconds(100))
        let port = harness.port
        let connections = 12
        let clients = try await onThread { try (0..<connections).map { _ in try MPDTestClient(port: port) } }
        let started = ContinuousClock.now
        let answers = try await withThrowingTaskGroup(of: String.self) { group in
            for client in clients { group.addTask { try await onThread { try client.exchange("password guess") } } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let elapsed = ContinuousClock.now - started
        #expect(answers == Array(repeating: "ACK [3@0] {password} incorrect password\n", count: connections))
        // 20 + 40 + 80 + 9 × 100 ms: at least 1.04 s before the last answer, however fast the machine.
        #expect(elapsed >= .milliseconds(1_040), "\(connections) simultaneous guesses answered in \(elapsed)")
        try await harness.stop()
    }

    @Test func peersAreKeyedByAddressAndTheUnixSocketIsOne() throws {
        #expect(MPDClientHandler.peerKey(try SocketAddress(ipAddress: "192.0.2.7", port: 4242)) == "192.0.2.7")
        #expect(MPDClientHandler.peerKey(try SocketAddress(ipAddress: "192.0.2.7", port: 4343)) == "192.0.2.7")
        #expect(MPDClientHandler.peerKey(try SocketAddress(unixDomainSocketPath: "/tmp/x")) == "unix socket")
    }
}
