import Foundation
import Glibc
import TestSupport

/// Starts the real `fermatad` binary for the crash test and kills it with SIGKILL.
final class DaemonProcess {
    static var binary: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("fermatad").path
    }

    let process = Process()
    let port: Int

    init(music: String, state: String, port: Int, log: String) throws {
        self.port = port
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["--music", music, "--state", state, "--output", "null", "--listen", "127.0.0.1:\(port)",
                             "--socket", "", "--resume", "paused", "--checkpoint-interval", "1"]
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        handle.seekToEndOfFile()
        process.standardError = handle
        process.standardOutput = handle
        try process.run()
    }

    /// A connected client, retrying while the daemon starts (at most 20 s).
    func connect() async throws -> MPDLineClient {
        for _ in 0..<2000 {
            if let client = MPDLineClient(port: port) { return client }
            guard process.isAlive else { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw MPDLineClient.Ack(line: "fermatad did not accept connections (exit \(process.isAlive ? -1 : process.reapedTerminationStatus))")
    }

    func kill() {
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.reap()
    }

    func terminate() {
        process.terminate()
        process.reap()
    }
}

/// Runs the sqlite3 command-line tool on `database` (the test reads the file between a kill and the restart).
func sqlite(_ database: String, _ sql: String) -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    process.arguments = [database, sql]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    guard (try? process.run()) != nil else { return "sqlite3 missing" }
    let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.reap()
    return text.trimmingCharacters(in: .whitespacesAndNewlines)
}
