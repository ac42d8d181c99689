import Foundation
import TestSupport

/// The built `fermatad` run for a fault test (a `FermatadProcess`): with the environment the test chooses (an ALSA
/// configuration of its own), no Unix socket, talked to over MPD on a free 127.0.0.1 port; and the programs a fault
/// test runs to their end.
///
/// Created and stopped by one test; every method that blocks runs through `onThread`.
struct FaultDaemon: Sendable {
    /// A set-up step that failed, with what it printed.
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static var binary: String { FermatadProcess.binary }

    let daemon: FermatadProcess
    var process: Process { daemon.process }
    var port: Int { daemon.port }
    var log: String { daemon.log }

    /// Starts fermatad and waits until it answers MPD (at most `Patience.stallSeconds`: a hang detector, since a
    /// loaded machine can take many seconds to start a debug build).
    static func start(_ arguments: [String], environment: [String: String], logPath: String) async throws
        -> FaultDaemon {
        try await onThread {
            let daemon = try FermatadProcess(arguments: arguments + ["--socket", ""], port: TestSocket.freePort(),
                                             logPath: logPath, environment: environment)
            guard daemon.waitUntilAnswering(within: Patience.stallSeconds) == .answering else {
                throw Failure("fermatad did not answer on port \(daemon.port); log:\n\(daemon.log)")
            }
            return FaultDaemon(daemon: daemon)
        }
    }

    /// One MPD command on a fresh connection; throws `MPDTestClient.Failure` when it is refused.
    @discardableResult
    func command(_ line: String) async throws -> MPDReply {
        let port = port
        return try await onThread { try MPDTestClient(port: port).ok(line) }
    }

    /// `status` as a dictionary.
    func status() async throws -> [String: String] {
        Dictionary(try await command("status").pairs.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
    }

    /// Polls `status` every 50 ms until `predicate` holds; returns that status, or the last one after
    /// `Patience.stall`. Only a hang detector: a scan's end, a state, a track played out come in seconds on a quiet
    /// machine, and the 10 to 30 s the callers used to give were bounds a loaded machine could overrun.
    func status(until predicate: ([String: String]) -> Bool) async throws -> [String: String] {
        let deadline = Date().addingTimeInterval(Patience.stallSeconds)
        var reply = try await status()
        while !predicate(reply) && Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
            reply = try await status()
        }
        return reply
    }

    /// Polls the log every 50 ms until it contains `text` (false after `Patience.stall`, a hang detector as for
    /// `status(until:)`).
    func log(contains text: String) async throws -> Bool {
        let deadline = Date().addingTimeInterval(Patience.stallSeconds)
        while !log.contains(text) && Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        return log.contains(text)
    }

    /// SIGTERM, then waits (SIGKILL after `Patience.stallSeconds`); the exit status (-1 when it had to be killed).
    func stop() async throws -> Int32 {
        try await onThread { [daemon] in daemon.stop() }
    }

    /// Runs fermatad with `arguments` to its end (killed after `Patience.stallSeconds`) and returns what it printed.
    static func runToEnd(_ arguments: [String]) async throws -> ProgramResult {
        try await run(binary, arguments, environment: ["PATH": "/usr/bin:/bin", "HOME": "/tmp"])
    }

    /// Runs `path` to its end (killed after `timeout` seconds: a hang detector, by default `Patience.stallSeconds`,
    /// since a program's run shows no progress before its end) on a thread of its own.
    static func run(_ path: String, _ arguments: [String], environment: [String: String]? = nil,
                    timeout: Double = Patience.stallSeconds) async throws -> ProgramResult {
        try await onThread { try ProgramResult.run(path, arguments, environment: environment, timeout: timeout) }
    }
}
