import Foundation
import Testing
import TestSupport

/// What a finished program printed and how it ended.
struct ProgramResult: Sendable, CustomStringConvertible {
    var status: Int32
    var stdout: Data
    var stderr: String
    var output: String { String(decoding: stdout, as: UTF8.self) }
    var description: String { "exit \(status), stdout \(output.debugDescription), stderr \(stderr.debugDescription)" }
}

/// The programs the end-to-end tests drive: the binaries `swift test` built, beside the test bundle, and the Debian
/// clients `mpc` and `python3` (with python3-mpd).
///
/// Stateless; `run` may be called from any thread (it blocks).
enum Programs {
    static let mpc = "/usr/bin/mpc"
    static let python = "/usr/bin/python3"
    static var buildDirectory: URL { URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent() }
    static func built(_ name: String) -> String { buildDirectory.appendingPathComponent(name).path }
    static let environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp"]

    /// Runs `path` to completion (killed after `timeout` seconds), capturing its output through files.
    static func run(_ path: String, _ arguments: [String], timeout: Double = 60) throws -> ProgramResult {
        let scratch = try TemporaryDirectory(prefix: "fermata-e2e-run")
        _ = FileManager.default.createFile(atPath: scratch.file("out"), contents: nil)
        _ = FileManager.default.createFile(atPath: scratch.file("err"), contents: nil)
        let out = try FileHandle(forWritingTo: scratch.url("out"))
        let err = try FileHandle(forWritingTo: scratch.url("err"))
        defer { try? out.close(); try? err.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isAlive && Date() < deadline { usleep(2_000) }
        if process.isAlive {
            kill(process.processIdentifier, SIGKILL)
            process.reap()
            throw MPDLink.Failure(description: "\(path) \(arguments) still running after \(timeout) s")
        }
        process.reap()
        let errors = FileManager.default.contents(atPath: scratch.file("err")) ?? Data()
        return ProgramResult(status: process.reapedTerminationStatus,
                             stdout: FileManager.default.contents(atPath: scratch.file("out")) ?? Data(),
                             stderr: String(decoding: errors, as: UTF8.self))
    }
}

/// A real `fermatad` on the generated library (`MusicFixture`) in a fresh temporary directory, listening on a free
/// 127.0.0.1 port and on `state/mpd.sock`, with the database scanned (`mpc update --wait`) before the test starts.
///
/// Created and stopped by one test through `Daemon.with`; its methods are called from that test's task only.
final class Daemon: @unchecked Sendable {
    let root: TemporaryDirectory
    let music: String
    let state: String
    private(set) var port = 0
    private var process = Process()
    var socketPath: String { state + "/mpd.sock" }
    var log: String { (try? String(contentsOfFile: state + "/fermatad.log", encoding: .utf8)) ?? "" }

    /// Starts a daemon, runs `body`, then stops the daemon (SIGTERM) and expects it to exit with status 0.
    static func with<T>(_ body: (Daemon) async throws -> T) async throws -> T {
        for binary in ["fermatad", "fermata"] {
            let path = Programs.built(binary)
            try #require(FileManager.default.isExecutableFile(atPath: path), "`swift test` builds \(path)")
        }
        try #require(FileManager.default.isExecutableFile(atPath: Programs.mpc), "Debian package mpc")
        let daemon = try await onThread { try Daemon() }
        let result: T
        do {
            result = try await body(daemon)
        } catch {
            _ = try? await onThread { daemon.stop() }
            throw error
        }
        let status = try await onThread { daemon.stop() }
        #expect(status == 0, "fermatad after SIGTERM; its log:\n\(daemon.log)")
        return result
    }

    private init() throws {
        root = try TemporaryDirectory(prefix: "fermata-e2e")
        music = try MusicFixture.write(root: root.path)
        state = root.file("state")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        // An explicit (empty) configuration file, so a host's /etc/fermata/fermata.toml cannot change the test.
        try Data("# fermata end-to-end tests: defaults only\n".utf8).write(to: root.url("fermata.toml"))
        var lastLog = ""
        for _ in 0..<4 {
            port = try MPDLink.freePort()
            if try launch() { break }
            lastLog = log
            guard lastLog.contains("in use") else { break }
        }
        guard process.isAlive, MPDLink.answers(port: port) else {
            throw MPDLink.Failure(description: "fermatad did not start on port \(port); its log:\n\(lastLog)")
        }
        let update = try Programs.run(Programs.mpc, ["-h", "127.0.0.1", "-p", String(port), "update", "--wait"])
        guard update.status == 0 else { throw MPDLink.Failure(description: "mpc update --wait: \(update)") }
        let deadline = Date().addingTimeInterval(30)
        while try MPDLink(port: port).command("listall").all("file").count < MusicFixture.tracks.count {
            guard Date() < deadline else { throw MPDLink.Failure(description: "the scan did not finish; log:\n\(log)") }
            usleep(20_000)
        }
    }

    deinit { if process.isAlive { kill(process.processIdentifier, SIGKILL) } }

    /// Starts fermatad on `port`; true once it answers there and its Unix socket exists, false if it exited.
    private func launch() throws -> Bool {
        let logPath = state + "/fermatad.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let logHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        defer { try? logHandle.close() }
        process = Process()
        process.executableURL = URL(fileURLWithPath: Programs.built("fermatad"))
        process.arguments = [
            "--config", root.file("fermata.toml"), "--music", music, "--state", state, "--output", "null",
            "--listen", "127.0.0.1:\(port)", "--socket", socketPath,
        ]
        process.environment = Programs.environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = logHandle
        process.standardError = logHandle
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            guard process.isAlive else { return false }
            if FileManager.default.fileExists(atPath: socketPath) && MPDLink.answers(port: port) { return true }
            usleep(20_000)
        }
        throw MPDLink.Failure(description: "fermatad not answering on port \(port) after 60 s; log:\n\(log)")
    }

    /// SIGTERM, then waits (SIGKILL after 20 s); returns the exit status (-1 when it had to be killed).
    private func stop() -> Int32 {
        if process.isAlive { process.terminate() }
        let deadline = Date().addingTimeInterval(20)
        while process.isAlive && Date() < deadline { usleep(5_000) }
        if process.isAlive {
            kill(process.processIdentifier, SIGKILL)
            process.reap()
            return -1
        }
        process.reap()
        return process.reapedTerminationReason == .exit ? process.reapedTerminationStatus : 128 + process.reapedTerminationStatus
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
        let arguments = arguments + ["--socket", socketPath]
        return try await onThread { try Programs.run(Programs.built("fermata"), arguments) }
    }

    /// One protocol command on a fresh connection.
    func command(_ line: String) async throws -> MPDLink.Reply {
        let port = port
        return try await onThread { try MPDLink(port: port).command(line) }
    }

    /// A protocol command that must succeed (an ACK is recorded as a failure and thrown).
    @discardableResult
    func ok(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> MPDLink.Reply {
        let reply = try await command(line)
        try #require(reply.isOK, "\(line) was refused: \(reply.ack ?? "")", sourceLocation: sourceLocation)
        return reply
    }

    func status() async throws -> MPDLink.Reply { try await ok("status") }

    /// The queue's files, in order.
    func queue() async throws -> [String] { try await ok("playlistinfo").all("file") }

    /// Polls `status` (every 20 ms, up to `seconds`) until `predicate` holds; returns that status, or the last one
    /// read.
    func status(within seconds: Double = 5, until predicate: (MPDLink.Reply) -> Bool) async throws -> MPDLink.Reply {
        let deadline = Date().addingTimeInterval(seconds)
        var reply = try await status()
        while !predicate(reply) && Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
            reply = try await status()
        }
        return reply
    }

    /// While a song plays: seeks to `seconds`, waits until the position is heard there, and pauses, so later
    /// readings of the position are exact to the second. Returns the paused status.
    func pause(afterSeekingTo seconds: Double) async throws -> MPDLink.Reply {
        try await ok("seekcur \(seconds)")
        let there = try await status(within: 3) { Double($0["elapsed"] ?? "") ?? 0 >= seconds }
        try await ok("pause 1")
        #expect(Double(there["elapsed"] ?? "") ?? 0 >= seconds, "seekcur \(seconds) not heard: \(there)")
        return try await status(within: 3) { $0["state"] == "pause" }
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
