import Foundation
import TestSupport
import Logging
import MPDProtocol
import MPDServer
import MPDTestSupport
import NIOCore
import ServiceLifecycle
import Testing

/// The NIO server over real sockets. Serialized: the machine has two cores and these tests open many sockets.
@Suite(.serialized) struct ServerBasicsTests {
    @Test func greetingCommandsAndCommandListOverTCP() async throws {
        let harness = try await ServerHarness.start()
        let port = harness.port
        try await onThread {
            let client = try MPDTestClient.raw(port: port)
            #expect(try client.readLine() == "OK MPD 0.24.0")
            #expect(try client.exchange("status").contains("state: stop\n"))
            try client.send("add /\nplaylistid 5\n")
            #expect(try client.readResponse() == "OK\n")
            #expect(try client.readResponse().hasPrefix("file: loose.wav\n"))
            #expect(
                try client.exchange("command_list_ok_begin\nping\ngetvol\ncommand_list_end")
                    == "list_OK\nvolume: 100\nlist_OK\nOK\n")
            #expect(try client.exchange("bogus") == "ACK [5@0] {} unknown command \"bogus\"\n")
            try client.send("ping\r\n")
            #expect(try client.readResponse() == "OK\n")
        }
        try await harness.stop()
    }

    @Test func pipelinedCommandsAreAnsweredInOrder() async throws {
        let harness = try await ServerHarness.start()
        let port = harness.port
        try await onThread {
            let client = try MPDTestClient.raw(port: port)
            _ = try client.readLine()
            var text = ""
            for index in 0..<5_000 { text += index % 2 == 0 ? "ping\n" : "getvol\n" }
            try client.send(text)
            for index in 0..<5_000 {
                #expect(try client.readResponse() == (index % 2 == 0 ? "OK\n" : "volume: 100\nOK\n"))
            }
        }
        try await harness.stop()
    }

    @Test func unixSocketReplacesAStaleFileAndHasMode0660() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fermata-stale-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/mpd.socket"
        try makeStaleSocket(at: path)
        let harness = try await ServerHarness.start(configure: { $0.unixSocketPath = path })
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o660)
        #expect((info.st_mode & S_IFMT) == S_IFSOCK)
        try await onThread {
            let client = try MPDTestClient.raw(unixPath: path)
            #expect(try client.readLine() == "OK MPD 0.24.0")
            #expect(try client.exchange("ping") == "OK\n")
        }
        try await harness.stop()
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aRegularFileAtTheSocketPathIsNeverRemoved() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fermata-file-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/precious"
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: path))
        let server = MPDServer(
            configuration: MPDServerConfiguration(tcp: nil, unixSocketPath: path), backend: InMemoryBackend())
        await #expect(throws: (any Error).self) { try await server.run() }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me")
        await #expect(throws: (any Error).self) { try await server.listeningAddresses() }
    }

    @Test func extraConnectionsAreRefusedWithOneLine() async throws {
        let harness = try await ServerHarness.start(configure: { $0.maxConnections = 3 })
        let (port, server) = (harness.port, harness.server)
        try await onThread {
            var clients = try (0..<3).map { _ in try MPDTestClient.raw(port: port) }
            for client in clients { #expect(try client.readLine() == "OK MPD 0.24.0") }
            let refused = try MPDTestClient.raw(port: port)
            #expect(
                String(decoding: try refused.readUntilClosed(), as: UTF8.self) == "ACK [52@0] {} too many connections\n"
            )
            #expect(server.connectionCount == 3)
            clients.removeFirst()
            _ = Patience.waitBlocking { server.connectionCount <= 2 }
            let client = try MPDTestClient.raw(port: port)
            #expect(try client.readLine() == "OK MPD 0.24.0")
            #expect(try client.exchange("ping") == "OK\n")
        }
        try await harness.stop()
    }

    @Test func silentClientsTimeOutButIdleClientsDoNot() async throws {
        let harness = try await ServerHarness.start(configure: { $0.connectionTimeout = .milliseconds(300) })
        let port = harness.port
        try await onThread {
            let silent = try MPDTestClient.raw(port: port)
            let idler = try MPDTestClient.raw(port: port)
            // `idle` goes out before anything else is read, so no stall of this thread between the connection and it
            // can let the 300 ms timeout close the idler too (the greeting waits in the socket meanwhile).
            try idler.send("idle\n")
            _ = try silent.readLine()
            _ = try idler.readLine()
            Thread.sleep(forTimeInterval: 1.2)
            #expect(try silent.readUntilClosed().isEmpty)
            #expect(try idler.exchange("noidle") == "OK\n")
        }
        try await harness.stop()
    }

    @Test func gracefulShutdownClosesClientsAndRemovesTheSocket() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fermata-stop-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/mpd.socket"
        var logger = Logger(label: "test.group")
        logger.logLevel = .warning
        let server = MPDServer(
            configuration: MPDServerConfiguration(tcp: .init(host: "127.0.0.1", port: 0), unixSocketPath: path),
            backend: InMemoryBackend(), logger: logger)
        let group = ServiceGroup(configuration: .init(services: [server], logger: logger))
        let running = Task { try await group.run() }
        let port = try await server.listeningAddresses().compactMap(\.port).first ?? 0
        let client = try await onThread {
            let client = try MPDTestClient.raw(port: port)
            _ = try client.readLine()
            try client.send("idle\n")
            return client
        }
        await group.triggerGracefulShutdown()
        try await running.value
        let rest = try await onThread { try client.readUntilClosed() }
        #expect(rest.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(server.connectionCount == 0)
    }

    /// Binds a Unix socket at `path` and closes it without unlinking, as a crashed daemon leaves it.
    func makeStaleSocket(at path: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() where index < raw.count - 1 { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        close(fd)
        guard result == 0 else { throw MPDTestClient.Failure(description: "bind stale socket: \(errno)") }
    }
}
