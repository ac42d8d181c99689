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

    /// Starts fermatad and waits (up to 30 s) until it answers MPD.
    static func start(_ arguments: [String], environment: [String: String], logPath: String) async throws
        -> FaultDaemon {
        try await onThread {
            let daemon = try FermatadProcess(arguments: arguments + ["--socket", ""], port: TestSocket.freePort(),
                                             logPath: logPath, environment: environment)
            guard daemon.waitUntilAnswering(within: 30) == .answering else {
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
        try await onThread { [daemon] in daemon.stop() }
    }

    /// Runs fermatad with `arguments` to its end (killed after 30 s) and returns what it printed.
    static func runToEnd(_ arguments: [String]) async throws -> ProgramResult {
        try await run(binary, arguments, environment: ["PATH": "/usr/bin:/bin", "HOME": "/tmp"])
    }

    /// Runs `path` to its end (killed after `timeout` seconds) on a thread of its own.
    static func run(_ path: String, _ arguments: [String], environment: [String: String]? = nil,
                    timeout: Double = 30) async throws -> ProgramResult {
        try await onThread { try ProgramResult.run(path, arguments, environment: environment, timeout: timeout) }
    }
}
