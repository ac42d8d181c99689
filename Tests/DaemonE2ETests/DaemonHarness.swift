import Foundation
import Testing
import TestSupport

/// The programs the end-to-end tests drive: the binaries `swift test` built, beside the test bundle, and the Debian
/// clients `mpc` and `python3` (with python3-mpd).
///
/// Stateless; `run` may be called from any thread (it blocks).
enum Programs {
    static let mpc = "/usr/bin/mpc"
    static let python = "/usr/bin/python3"
    static func built(_ name: String) -> String { FermatadProcess.built(name) }
    static let environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp"]

    /// Runs `path` to completion (killed after `timeout` seconds: a hang detector, `Patience.stallSeconds` unless
    /// the caller knows its program runs longer) with the tests' environment.
    static func run(_ path: String, _ arguments: [String], timeout: Double = Patience.stallSeconds) throws
        -> ProgramResult {
        try ProgramResult.run(path, arguments, environment: environment, timeout: timeout)
    }
}

/// A real `fermatad` (a `FermatadProcess`) on the generated library (`MusicFixture`) in a fresh temporary
/// directory, listening on a free 127.0.0.1 port and on `state/mpd.sock`, with the database scanned
/// (`mpc update --wait`) before the test starts.
///
/// Created and stopped by one test through `Daemon.with`; every stored property is a constant.
final class Daemon: Sendable {
    let root: TemporaryDirectory
    let music: String
    let state: String
    private let process: FermatadProcess
    var port: Int { process.port }
    var socketPath: String { state + "/mpd.sock" }
    var log: String { process.log }

    /// Starts a daemon (with `config` as its configuration file), runs `body`, then stops the daemon (SIGTERM) and
    /// expects it to exit with status 0.
    static func with<T>(config: String = "", _ body: (Daemon) async throws -> T) async throws -> T {
        for binary in ["fermatad", "fermata"] {
            let path = Programs.built(binary)
            try #require(FileManager.default.isExecutableFile(atPath: path), "`swift test` builds \(path)")
        }
        try #require(FileManager.default.isExecutableFile(atPath: Programs.mpc), "Debian package mpc")
        let daemon = try await onThread { try Daemon(config: config) }
        let result: T
        do {
            result = try await body(daemon)
        } catch {
            _ = try? await onThread { daemon.process.stop() }
            throw error
        }
        let status = try await onThread { daemon.process.stop() }
        #expect(status == 0, "fermatad after SIGTERM; its log:\n\(daemon.log)")
        return result
    }

    private init(config: String) throws {
        root = try TemporaryDirectory(prefix: "fermata-e2e")
        music = try MusicFixture.write(root: root.path)
        state = root.file("state")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        // An explicit (empty) configuration file, so a host's /etc/fermata/fermata.toml cannot change the test.
        try Data(("# fermata end-to-end tests\n" + config).utf8).write(to: root.url("fermata.toml"))
        process = try Self.launch(root: root, music: music, state: state)
        let port = process.port
        let update = try Programs.run(Programs.mpc, ["-h", "127.0.0.1", "-p", String(port), "update", "--wait"])
        guard update.status == 0 else { throw MPDTestClient.Failure(description: "mpc update --wait: \(update)") }
        let deadline = Date().addingTimeInterval(30)
        while try MPDTestClient(port: port).command("listall").all("file").count < MusicFixture.tracks.count {
            guard Date() < deadline else {
                throw MPDTestClient.Failure(description: "the scan did not finish; log:\n\(process.log)")
            }
            usleep(20_000)
        }
    }

    /// Starts fermatad on a free port (another, up to four times, when the port was taken meanwhile) and waits until
    /// it answers there and its Unix socket exists.
    private static func launch(root: TemporaryDirectory, music: String, state: String) throws -> FermatadProcess {
        let socketPath = state + "/mpd.sock"
        let logPath = state + "/fermatad.log"
        var lastLog = ""
        for _ in 0..<4 {
            _ = FileManager.default.createFile(atPath: logPath, contents: nil) // each attempt's own log
            let process = try FermatadProcess(
                arguments: ["--config", root.file("fermata.toml"), "--music", music, "--state", state,
                            "--output", "null", "--socket", socketPath],
                port: TestSocket.freePort(), logPath: logPath, environment: Programs.environment)
            let answering = process.waitUntilAnswering(within: Patience.stallSeconds, and: {
                FileManager.default.fileExists(atPath: socketPath)
            })
            switch answering {
            case .answering:
                return process
            case .timedOut:
                throw MPDTestClient.Failure(description: "fermatad not answering on port \(process.port) after "
                                                + "\(Int(Patience.stallSeconds)) s; log:\n\(process.log)")
            case let .exited(status):
                lastLog = process.log
                guard lastLog.contains("in use") else {
                    throw MPDTestClient.Failure(description: "fermatad exited (\(status)); its log:\n\(lastLog)")
                }
            }
        }
        throw MPDTestClient.Failure(description: "fermatad found no free port; its last log:\n\(lastLog)")
    }

    // MARK: clients

    /// `mpc -h 127.0.0.1 -p PORT ARGUMENTS...`
    func mpc(_ arguments: String...) async throws -> ProgramResult {
        let port = String(port)
        return try await onThread { try Programs.run(Programs.mpc, ["-h", "127.0.0.1", "-p", port] + arguments) }
    }

    /// The `fermata` CLI with `--socket` pointing at this daemon (placed after the subcommand's words).
    func fermata(_ arguments: String...) async throws -> ProgramResult { try await fermata(arguments: arguments) }

    func fermata(arguments: [String]) async throws -> ProgramResult {
        // Before a `--` (after it every word is an argument, as for any Unix tool), else at the end.
        let split = arguments.firstIndex(of: "--") ?? arguments.endIndex
        let arguments = Array(arguments[..<split]) + ["--socket", socketPath] + arguments[split...]
        return try await onThread { try Programs.run(Programs.built("fermata"), arguments) }
    }

    /// One protocol command on a fresh connection.
    func command(_ line: String) async throws -> MPDReply {
        let port = port
        return try await onThread { try MPDTestClient(port: port).command(line) }
    }

    /// A protocol command that must succeed (an ACK is recorded as a failure and thrown).
    @discardableResult
    func ok(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> MPDReply {
        let reply = try await command(line)
        try #require(reply.isOK, "\(line) was refused: \(reply.ack ?? "")", sourceLocation: sourceLocation)
        return reply
    }

    func status() async throws -> MPDReply { try await ok("status") }

    /// The queue's files, in order.
    func queue() async throws -> [String] { try await ok("playlistinfo").all("file") }

    /// Polls `status` (every 20 ms) until `predicate` holds; returns that status, or the first one asked for at or
    /// after `Patience.stall`, for the caller's expectation to fail on. That bound is only a hang detector: what the
    /// tests wait for here (a state after a command, a position, the end of a scan) comes in well under a second on a
    /// quiet machine, and the 0.8 to 10 s the callers used to give were bounds a loaded machine could overrun. A reply
    /// that arrives late (a loaded machine kept this task waiting past the deadline) ends nothing: the wait ends on a
    /// reading asked for after the deadline, so a failure means the daemon still did not meet the condition then —
    /// not that the first reading, taken at once, was stale.
    func status(until predicate: (MPDReply) -> Bool) async throws -> MPDReply {
        let deadline = Date().addingTimeInterval(Patience.stallSeconds)
        while true {
            let asked = Date()
            let reply = try await status()
            if predicate(reply) || asked >= deadline { return reply }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// While a song plays: pauses, then seeks to `seconds` while paused, and waits until the paused position is
    /// there, so later readings of the position are exact to the second. Returns the paused status.
    ///
    /// Pausing first: the old order (seek, wait until the position was heard there, pause) left the song playing for
    /// as long as a loaded machine took between the two commands, and a 2 s song on repeat could wrap round to its
    /// start in the meantime (seen twice in CI under load: paused at 0.015 and 0.285 s instead of 1.2).
    func pause(afterSeekingTo seconds: Double) async throws -> MPDReply {
        try await ok("pause 1")
        _ = try await status { $0["state"] == "pause" }
        try await ok("seekcur \(seconds)")
        let there = try await status {
            $0["state"] == "pause" && abs((Double($0["elapsed"] ?? "") ?? -1) - seconds) < 0.05
        }
        #expect(abs((Double(there["elapsed"] ?? "") ?? -1) - seconds) < 0.05, "seekcur \(seconds) while paused: \(there)")
        return there
    }
}

/// Regular-expression checks for output with times in it.
extension String {
    /// Whether the whole string matches `pattern`.
    func matches(_ pattern: String) -> Bool {
        guard let regex = try? Regex(pattern) else { return false }
        return wholeMatch(of: regex) != nil
    }

    /// The lines, without a final empty one.
    var lines: [String] {
        isEmpty ? [] : split(separator: "\n", omittingEmptySubsequences: false).dropLast(hasSuffix("\n") ? 1 : 0)
            .map(String.init)
    }
}
