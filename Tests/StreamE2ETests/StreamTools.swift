import Foundation
import Glibc
import Testing
import TestSupport

/// The stream tests' servers and tools (Tests/Tools/streams, Python, stdlib only) and the daemon they play to.
enum StreamTools {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tools/streams").path
    static let python = "/usr/bin/python3"
    static func tool(_ name: String) -> String { directory + "/" + name }

    /// Runs a tool to its end; throws with its output when it fails.
    @discardableResult
    static func run(_ name: String, _ arguments: [String]) throws -> String {
        let result = try ProgramResult.run(python, [tool(name)] + arguments)
        guard result.status == 0 else {
            throw FermatadProcess.Failure(description: "\(name) \(arguments): \(result)")
        }
        return result.output
    }
}

/// A server of the tests' own running in the background (the hostile HTTP server): started, its one JSON line read
/// once it is ready, killed when released.
///
/// Sendable: constants only. `start` blocks: call it off the cooperative pool.
final class BackgroundTool: Sendable {
    let process: Process
    /// The JSON object the tool printed when ready.
    let ready: [String: String]
    private let output: String

    init(_ name: String, _ arguments: [String], scratch: TemporaryDirectory) throws {
        let output = scratch.file("\(name).out")
        self.output = output
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: StreamTools.python)
        process.arguments = [StreamTools.tool(name)] + arguments
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        var line: String?
        let found = Patience.waitBlocking {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            line = text.split(separator: "\n").first { $0.hasPrefix("{") }.map(String.init)
            return line != nil || !process.isAlive
        }
        guard found, let line, let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else {
            process.terminate()
            throw FermatadProcess.Failure(description: "\(name) did not start: \((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")")
        }
        ready = object.mapValues { "\($0)" }
    }

    /// SIGTERM, and SIGKILL when it has not ended within 5 s (a connection thread may hold it).
    deinit {
        if process.isAlive { process.terminate() }
        if !process.reap(timeout: 5) {
            kill(process.processIdentifier, SIGKILL)
            process.reap()
        }
    }

    var port: Int { Int(ready["port"] ?? "") ?? 0 }
}

/// A fermatad for stream tests: its own state, no music, the null or a capturing output, MPD on a free port.
///
/// Sendable: constants only; blocking calls off the cooperative pool.
final class StreamDaemon: Sendable {
    let root: TemporaryDirectory
    let process: FermatadProcess

    /// `output`: `null` (paced) or `file:PATH` (`$ROOT`: the daemon's directory); `config`: extra configuration text.
    init(output: String = "null", config: String = "", launcher: [String] = []) throws {
        root = try TemporaryDirectory(prefix: "fermata-streams")
        try FileManager.default.createDirectory(atPath: root.file("music"), withIntermediateDirectories: true)
        try Data(("# stream tests\n" + config).utf8).write(to: root.url("fermata.toml"))
        process = try Self.launch(root: root, output: output, launcher: launcher)
    }

    /// A daemon on the state (and configuration) another one left in `root`.
    init(reusing root: TemporaryDirectory, output: String = "null") throws {
        self.root = root
        process = try Self.launch(root: root, output: output, launcher: [])
    }

    private static func launch(root: TemporaryDirectory, output: String, launcher: [String]) throws -> FermatadProcess {
        let process = try FermatadProcess(
            arguments: ["--config", root.file("fermata.toml"), "--music", root.file("music"), "--state", root.file("state"),
                        "--output", output.replacingOccurrences(of: "$ROOT", with: root.path), "--socket", "",
                        "--board", "off"],
            port: TestSocket.freePort(), logPath: root.file("fermatad.log"), launcher: launcher)
        guard process.waitUntilAnswering(within: Patience.stallSeconds) == .answering else {
            throw FermatadProcess.Failure(description: "fermatad did not answer:\n\(process.log)")
        }
        return process
    }

    var log: String { process.log }

    func client() throws -> MPDTestClient { try MPDTestClient(port: process.port) }

    /// One command on a fresh connection; an ACK is a failure.
    @discardableResult
    func ok(_ line: String) throws -> MPDReply {
        let reply = try client().command(line)
        guard reply.isOK else { throw FermatadProcess.Failure(description: "\(line): \(reply.ack ?? "")") }
        return reply
    }

    /// `status` as a dictionary.
    func status() throws -> [String: String] {
        Dictionary(try ok("status").pairs.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    func stop() -> Int32 { process.stop() }
}

extension String {
    /// The text quoted for an MPD command argument.
    var quoted: String { "\"" + replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
}
