import Foundation
import Glibc

/// What a finished program printed and how it ended.
public struct ProgramResult: Sendable, CustomStringConvertible {
    public var status: Int32
    public var stdout: Data
    public var stderr: String
    public var output: String { String(decoding: stdout, as: UTF8.self) }
    public var description: String { "exit \(status), stdout \(output.debugDescription), stderr \(stderr.debugDescription)" }

    /// Runs `path` to its end (SIGKILLed after `timeout` seconds: then it throws), its output captured through files
    /// (a pipe would fill and stall a talkative program). Blocks: call it off the cooperative pool (`onThread`).
    /// A program's output comes at its end, so there is no progress to watch: `timeout` is a hang detector, by
    /// default `Patience.stallSeconds` (it was 60 s, a bound on the program's work that load could approach).
    /// `input`: what the program reads on its standard input (nil: nothing, /dev/null).
    public static func run(_ path: String, _ arguments: [String], environment: [String: String]? = nil,
                           timeout: Double = Patience.stallSeconds, input: Data? = nil) throws -> ProgramResult {
        let scratch = try TemporaryDirectory(prefix: "fermata-run")
        for name in ["out", "err"] { _ = FileManager.default.createFile(atPath: scratch.file(name), contents: nil) }
        let out = try FileHandle(forWritingTo: scratch.url("out"))
        let err = try FileHandle(forWritingTo: scratch.url("err"))
        defer { try? out.close(); try? err.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let input {
            try input.write(to: scratch.url("in"))
            process.standardInput = try FileHandle(forReadingFrom: scratch.url("in"))
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        process.standardOutput = out
        process.standardError = err
        try process.run()
        guard process.reap(timeout: timeout) else {
            kill(process.processIdentifier, SIGKILL)
            process.reap()
            throw FermatadProcess.Failure(description: "\(path) \(arguments) still running after \(timeout) s")
        }
        let errors = FileManager.default.contents(atPath: scratch.file("err")) ?? Data()
        return ProgramResult(status: process.reapedTerminationStatus,
                             stdout: FileManager.default.contents(atPath: scratch.file("out")) ?? Data(),
                             stderr: String(decoding: errors, as: UTF8.self))
    }
}

/// The built `fermatad` (beside the test bundle or the benchmark) run as a child process: the test's arguments and
/// environment, its output in a log file, MPD on a 127.0.0.1 port; stopped with SIGTERM (and its exit status checked)
/// or killed with SIGKILL, and killed when released if still running. The one way the tests start the daemon: the
/// end-to-end, output, crash and fault harnesses each add only their own set-up.
///
/// Sendable: every stored property is a constant. `waitUntilAnswering`, `stop` and `kill` block: call them off the
/// cooperative pool (`onThread`).
public final class FermatadProcess: Sendable {
    /// A start or stop that did not go as it must, with what the daemon logged.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// How a wait for the daemon to answer ended.
    public enum Answering: Sendable, Equatable {
        case answering
        /// It exited first, with this status.
        case exited(Int32)
        case timedOut
    }

    /// The built `fermatad` beside this program.
    public static var binary: String { built("fermatad") }

    /// A program `swift build` put beside this one.
    public static func built(_ name: String) -> String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name).path
    }

    public let process: Process
    /// The TCP port it was told to listen on (127.0.0.1).
    public let port: Int
    public let logPath: String
    /// Everything it has logged so far.
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
    public var isRunning: Bool { process.isAlive }

    /// Starts fermatad with `arguments` followed by `--listen 127.0.0.1:PORT` (and `--web ""` unless they say `--web`),
    /// appending its stdout and stderr to
    /// `logPath`. `environment` nil: this process's own.
    /// `launcher`: a program that runs fermatad (its words come first, then fermatad's path and arguments), such as
    /// a wrapper giving it a resolver of its own; it must end by exec'ing fermatad so signals reach it.
    public init(arguments: [String], port: Int, logPath: String, environment: [String: String]? = nil,
                launcher: [String] = []) throws {
        self.port = port
        self.logPath = logPath
        if !FileManager.default.fileExists(atPath: logPath) {
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        defer { try? handle.close() }
        handle.seekToEndOfFile()
        process = Process()
        process.executableURL = URL(fileURLWithPath: launcher.first ?? Self.binary)
        // No web remote unless the test asks for one (`--web`): tests run side by side, and the default
        // 127.0.0.1:6680 is one port.
        process.arguments = (launcher.isEmpty ? [] : Array(launcher.dropFirst()) + [Self.binary])
            + arguments + ["--listen", "127.0.0.1:\(port)"] + (arguments.contains("--web") ? [] : ["--web", ""])
        if let environment { process.environment = environment }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
    }

    deinit { if process.isAlive { Glibc.kill(process.processIdentifier, SIGKILL) } }

    /// Waits (up to `seconds`, polling every 20 ms: a starting daemon sends no event) until it greets an MPD client
    /// on its port and `ready` holds, or it exits.
    public func waitUntilAnswering(within seconds: Double, and ready: () -> Bool = { true }) -> Answering {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            guard process.isAlive else { return .exited(process.reapedTerminationStatus) }
            if ready(), MPDTestClient.answers(port: port) { return .answering }
            guard Date() < deadline else { return .timedOut }
            usleep(20_000)
        }
    }

    /// A connected client, retrying while the daemon starts (up to `seconds`, by default `Patience.stallSeconds`: a
    /// hang detector, as a loaded machine can take many seconds to start a debug build); throws with the log when it
    /// exited or never answered.
    public func connect(within seconds: Double = Patience.stallSeconds) throws -> MPDTestClient {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, process.isAlive {
            if let client = try? MPDTestClient(port: port) { return client }
            usleep(10_000)
        }
        let ending = process.isAlive ? "not answering after \(seconds) s" : "exit \(process.reapedTerminationStatus)"
        throw Failure(description: "fermatad did not accept connections on port \(port) (\(ending)); log:\n\(log)")
    }

    /// SIGTERM, then waits (SIGKILL after `grace` seconds: a hang detector, by default `Patience.stallSeconds`, as
    /// the save and the stop take as long as a loaded machine makes them). The exit status; 128 + the signal when a
    /// signal ended it; -1 when it had to be killed.
    @discardableResult
    public func stop(grace: Double = Patience.stallSeconds) -> Int32 {
        if process.isAlive { process.terminate() }
        guard process.reap(timeout: grace) else {
            kill()
            return -1
        }
        let status = process.reapedTerminationStatus
        return process.reapedTerminationReason == .exit ? status : 128 + status
    }

    /// SIGKILL, and waits for the exit.
    public func kill() {
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.reap()
    }
}
