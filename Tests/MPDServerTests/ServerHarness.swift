import Foundation
import Logging
import MPDProtocol
import MPDServer
import MPDTestSupport
import NIOCore
import TestSupport

/// A running `MPDServer` on an ephemeral localhost port (and optionally a Unix socket in a temp dir) over an
/// `InMemoryBackend`.
///
/// Created and stopped by one test.
struct ServerHarness {
    let server: MPDServer
    let backend: InMemoryBackend
    let task: Task<Void, any Error>
    let port: Int
    let directory: String

    /// `logs`: collects everything the server logs (else only warnings go to the console).
    static func start(
        backend: InMemoryBackend = InMemoryBackend(), unixSocket: Bool = false, logs: LogCollector? = nil,
        configure: (inout MPDServerConfiguration) -> Void = { _ in }
    ) async throws -> ServerHarness {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fermata-mpd-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var configuration = MPDServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0))
        if unixSocket { configuration.unixSocketPath = directory + "/mpd.socket" }
        configure(&configuration)
        var logger = logs.map { logs in Logger(label: "test.mpd", factory: { _ in logs }) } ?? Logger(label: "test.mpd")
        if logs == nil { logger.logLevel = .warning }
        let server = MPDServer(configuration: configuration, backend: backend, logger: logger)
        let task = Task { try await server.run() }
        let addresses = try await server.listeningAddresses()
        let port = addresses.compactMap(\.port).first ?? 0
        return ServerHarness(server: server, backend: backend, task: task, port: port, directory: directory)
    }

    var socketPath: String { directory + "/mpd.socket" }

    func stop() async throws {
        task.cancel()
        try await task.value
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Polls until `condition` holds; false after `Patience.stall` (a hang detector: it was 5 s, which a loaded
    /// machine can overrun while the server's threads and this task wait for a core).
    func eventually(_ condition: () async -> Bool) async -> Bool {
        (try? await Patience.wait(until: condition)) ?? false
    }
}

/// The resident set size of this process in KiB (VmRSS), or 0 if unreadable.
func residentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}
