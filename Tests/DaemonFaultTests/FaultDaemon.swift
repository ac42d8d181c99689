import Foundation
import Glibc
import TestSupport

/// The built `fermatad` (beside the test bundle) run for a fault test: with the environment the test chooses (an ALSA
/// configuration of its own), its log in a file, talked to over MPD on a free 127.0.0.1 port.
///
/// Created and stopped by one test; `start`/`stop`/`runToEnd` block and run through `onThread`, the other methods are
/// called from the test's task only.
final class FaultDaemon: @unchecked Sendable {
    /// A finished program's exit status and output.
    struct Result: Sendable, CustomStringConvertible {
        var status: Int32
        var output: String
        var errors: String
        var description: String { "exit \(status)\nstdout: \(output)\nstderr: \(errors)" }
    }

    /// A set-up step that failed, with what it printed.
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static var binary: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("fermatad").path
    }

    let process = Process()
    let port: Int
    let logPath: String
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    private init(arguments: [String], environment: [String: String], port: Int, logPath: String) throws {
        self.port = port
        self.logPath = logPath
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        defer { try? handle.close() }
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments + ["--listen", "127.0.0.1:\(port)", "--socket", ""]
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
    }

    deinit { if process.isAlive { kill(process.processIdentifier, SIGKILL) } }

    /// Starts fermatad and waits (up to 30 s) until it answers MPD.
    static func start(_ arguments: [String], environment: [String: String], logPath: String) async throws
        -> FaultDaemon {
        try await onThread {
            let daemon = try FaultDaemon(arguments: arguments, environment: environment, port: TestSocket.freePort(),
                                         logPath: logPath)
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline && daemon.process.isAlive {
                if MPDLineClient(port: daemon.port) != nil { return daemon }
                usleep(20_000)
            }
            throw MPDLineClient.Ack(line: "fermatad did not answer on port \(daemon.port); log:\n\(daemon.log)")
        }
    }

    /// One MPD command on a fresh connection; the reply's pairs (throws `MPDLineClient.Ack` on an error answer).
    @discardableResult
    func command(_ line: String) async throws -> [(String, String)] {
        let port = port
        return try await onThread {
            guard let client = MPDLineClient(port: port) else { throw MPDLineClient.Ack(line: "no connection") }
            return try client.command(line)
        }
    }

    /// `status` as a dictionary.
    func status() async throws -> [String: String] {
        Dictionary(try await command("status"), uniquingKeysWith: { $1 })
    }

    /// Polls `status` every 50 ms for up to `seconds` until `predicate` holds; returns that status or the last one.
    func status(within seconds: Double, until predicate: ([String: String]) -> Bool) async throws -> [String: String] {
        let deadline = Date().addingTimeInterval(seconds)
        var reply = try await status()
        while !predicate(reply) && Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
            reply = try await status()
        }
        return reply
    }

    /// Polls the log every 50 ms for up to `seconds` until it contains `text`.
    func log(within seconds: Double, contains text: String) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !log.contains(text) && Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        return log.contains(text)
    }

    /// SIGTERM, then waits (SIGKILL after 20 s); the exit status (-1 when it had to be killed).
    func stop() async throws -> Int32 {
        try await onThread { [self] in
            if process.isAlive { process.terminate() }
            let deadline = Date().addingTimeInterval(20)
            while process.isAlive && Date() < deadline { usleep(5_000) }
            if process.isAlive {
                kill(process.processIdentifier, SIGKILL)
                process.reap()
                return -1
            }
            process.reap()
            return process.reapedTerminationStatus
        }
    }

    /// Runs fermatad with `arguments` to its end (killed after 30 s) and returns what it printed.
    static func runToEnd(_ arguments: [String]) async throws -> Result {
        try await run(binary, arguments, environment: ["PATH": "/usr/bin:/bin", "HOME": "/tmp"])
    }

    /// Runs `path` to its end (killed after `timeout` seconds) on a thread of its own.
    static func run(_ path: String, _ arguments: [String], environment: [String: String]? = nil,
                    timeout: Double = 30) async throws -> Result {
        try await onThread {
            let scratch = try TemporaryDirectory(prefix: "fermata-fault-run")
            for name in ["out", "err"] { _ = FileManager.default.createFile(atPath: scratch.file(name), contents: nil) }
            let out = try FileHandle(forWritingTo: scratch.url("out"))
            let err = try FileHandle(forWritingTo: scratch.url("err"))
            defer { try? out.close(); try? err.close() }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = arguments
            if let environment { process.environment = environment }
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = out
            process.standardError = err
            try process.run()
            let deadline = Date().addingTimeInterval(timeout)
            while process.isAlive && Date() < deadline { usleep(5_000) }
            if process.isAlive { kill(process.processIdentifier, SIGKILL) }
            process.reap()
            func text(_ name: String) -> String {
                String(decoding: FileManager.default.contents(atPath: scratch.file(name)) ?? Data(), as: UTF8.self)
            }
            return Result(status: process.reapedTerminationStatus, output: text("out"), errors: text("err"))
        }
    }
}
