import Foundation
import Testing
import TestSupport

/// Multi-room through Snapcast: fermatad's FIFO output feeds a real snapserver (`pipe://` source, its own ports and
/// state, no web or control port) and a real snapclient plays the stream into a raw file. The signal must arrive:
/// the played excerpt correlates highly with what the client wrote, a wrong (time-reversed) excerpt does not.
///
/// The client writes through snapclient's `file` player, not an ALSA `file` PCM: without a sound card ALSA has no
/// paced PCM (a `file` PCM over `null` takes data as fast as it comes), and snapclient's ALSA player then loops
/// without pause (4.7 GB in 6 s measured), so its output says nothing. The `file` player is paced by its own clock.
@Suite(.serialized) struct SnapcastTests {
    static let snapserver = "/usr/bin/snapserver"
    static let snapclient = "/usr/bin/snapclient"

    @Test func signalReachesASnapclient() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.snapserver), "Debian package snapserver")
        try #require(FileManager.default.isExecutableFile(atPath: Self.snapclient), "Debian package snapclient")
        let daemon = try OutputDaemon(config: """
            [output-snapcast]
            type = "fifo"
            path = "$ROOT/snapfifo"
            format = "48000:16:2"

            """)
        let root = daemon.root
        let received = try await onThread { () -> [UInt8] in
            try daemon.start()
            defer { _ = daemon.stop() }
            let deadline = Date().addingTimeInterval(10)
            while access(root.file("snapfifo"), F_OK) != 0 && Date() < deadline { usleep(20_000) }
            let port = try MPDLink.freePort()
            try FileManager.default.createDirectory(atPath: root.file("snapstate"), withIntermediateDirectories: true)
            try Data("""
                [server]
                datadir = \(root.file("snapstate"))
                [http]
                enabled = false
                [tcp]
                enabled = false
                [stream]
                bind_to_address = 127.0.0.1
                port = \(port)
                source = pipe://\(root.file("snapfifo"))?name=Fermata&sampleformat=48000:16:2&mode=read
                [logging]
                sink = stdout

                """.utf8).write(to: root.url("snapserver.conf"))
            let server = try Self.launch(Self.snapserver, ["-c", root.file("snapserver.conf")], log: root.file("server.log"))
            defer { Self.stop(server) }
            usleep(1_000_000)
            let client = try Self.launch(Self.snapclient, [
                "-h", "127.0.0.1", "-p", String(port), "--hostID", "fermata-test", "--logsink", "stdout",
                "--player", "file:filename=\(root.file("client.raw"))",
            ], log: root.file("client.log"))
            defer { Self.stop(client) }
            usleep(3_000_000)  // connected and time-synchronised
            try daemon.playBothToEnd()
            usleep(3_000_000)  // the client's buffer (1 s by default) plays out
            Self.stop(client)
            return [UInt8](FileManager.default.contents(atPath: root.file("client.raw")) ?? Data())
        }
        let clientLog = (try? String(contentsOfFile: root.file("client.log"), encoding: .utf8)) ?? ""
        try #require(received.count > 4 * 48_000 * 4, "snapclient wrote \(received.count) bytes; its log:\n\(clientLog)")
        let left = stride(from: 0, to: received.count - 3, by: 4).map {
            Double(Int16(bitPattern: UInt16(received[$0]) | UInt16(received[$0 + 1]) << 8))
        }
        // One second across the track boundary (frame 144 000), left channel.
        let excerpt = stride(from: 100_000, to: 148_000, by: 1).map { Double(OutputDaemon.signal[$0 * 2]) }
        let (matched, wrong) = try await onThread {
            (CrossCorrelation.peak(of: excerpt, in: left), CrossCorrelation.peak(of: excerpt.reversed(), in: left))
        }
        print("snapcast: correlation \(matched) with the played signal, \(wrong) with the reversed one")
        let serverLog = (try? String(contentsOfFile: root.file("server.log"), encoding: .utf8)) ?? ""
        #expect(matched > 0.9, """
            correlation with the played signal: \(matched); loudest sample \(left.map(abs).max() ?? 0) of \(left.count); \
            client log:\n\(clientLog)\nserver log:\n\(serverLog)\nfermatad log:\n\(daemon.log)
            """)
        #expect(wrong < 0.3, "correlation with a wrong signal: \(wrong)")
    }

    /// Starts `path` with its output appended to `log`.
    static func launch(_ path: String, _ arguments: [String], log: String) throws -> Process {
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = Programs.environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        return process
    }

    /// SIGTERM, then SIGKILL after 5 s; waits for the exit (blocking).
    static func stop(_ process: Process) {
        guard process.isAlive else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(5)
        while process.isAlive && Date() < deadline { usleep(10_000) }
        if process.isAlive { kill(process.processIdentifier, SIGKILL) }
        process.reap()
    }
}
