import Foundation
import TestSupport
import MPDProtocol
import MPDServer
import MPDTestSupport
import Testing

/// Hostile and broken clients: the server stays up, memory stays bounded, other clients keep being served.
@Suite(.serialized) struct BadInputTests {
    @Test func overLongLinesGetAnACKAndAreDropped() async throws {
        let harness = try await ServerHarness.start()
        let port = harness.port
        try await onThread {
            let watcher = try MPDTestClient.raw(port: port)
            _ = try watcher.readLine()
            for payload in [
                String(repeating: "a", count: 20_000), "find " + String(repeating: "x", count: 9_000) + "\n",
            ] {
                let client = try MPDTestClient.raw(port: port)
                _ = try client.readLine()
                try? client.send(payload)
                #expect(String(decoding: try client.readUntilClosed(), as: UTF8.self) == "ACK [5@0] {} line too long\n")
                #expect(try watcher.exchange("ping") == "OK\n")
            }
            let client = try MPDTestClient.raw(port: port)
            _ = try client.readLine()
            // A line just under the limit is read and answered (here: refused by the filter value cap), not dropped.
            #expect(
                try client.exchange("find file " + String(repeating: "y", count: 8_000))
                    == "ACK [2@0] {find} Filter value too long (at most 1024 bytes)\n")
            #expect(try client.exchange("ping") == "OK\n")
        }
        try await harness.stop()
    }

    @Test func binaryGarbageAndRandomLinesNeverHurtOtherClients() async throws {
        let harness = try await ServerHarness.start()
        let (port, server) = (harness.port, harness.server)
        try await onThread {
            let watcher = try MPDTestClient.raw(port: port)
            _ = try watcher.readLine()
            var generator = SplitMix(seed: 42)
            for round in 0..<60 {
                let client = try MPDTestClient.raw(port: port)
                _ = try client.readLine()
                var bytes: [UInt8]
                switch round % 3 {
                case 0: bytes = (0..<4_096).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                case 1: bytes = Array(Self.randomLines(&generator).utf8)
                default: bytes = Array("command_list_begin\nstatus\n\u{0}\u{1}\"\\\n".utf8) + [0xFF, 0xFE, 0x0A]
                }
                try? client.send(bytes: bytes)
                try? client.send("\n\nping\n")
                _ = try? client.readUntilClosed()
                #expect(try watcher.exchange("status").hasSuffix("OK\n"))
                _ = Patience.waitBlocking { server.connectionCount <= 1 }
                #expect(server.connectionCount == 1, "round \(round) left a connection open")
            }
        }
        #expect(await harness.eventually { harness.server.connectionCount == 0 })
        try await harness.stop()
    }

    @Test func unterminatedCommandListThenDisconnect() async throws {
        let harness = try await ServerHarness.start()
        let (port, server) = (harness.port, harness.server)
        try await onThread {
            let watcher = try MPDTestClient.raw(port: port)
            _ = try watcher.readLine()
            for _ in 0..<50 {
                let client = try MPDTestClient.raw(port: port)
                _ = try client.readLine()
                try client.send("command_list_ok_begin\nadd /\nsetvol 3\nstatus\n")
            }
            #expect(try watcher.exchange("getvol") == "volume: 100\nOK\n")
            #expect(try watcher.exchange("status").contains("playlistlength: 0\n"))
            _ = Patience.waitBlocking { server.connectionCount <= 1 }
            #expect(server.connectionCount == 1)
        }
        #expect(await harness.eventually { harness.server.connectionCount == 0 })
        #expect(await harness.eventually { harness.backend.idle.subscriberCount == 0 })
        try await harness.stop()
    }

    @Test func tenThousandIdleNoidleCyclesOnOneConnection() async throws {
        let harness = try await ServerHarness.start()
        let port = harness.port
        let client = try await onThread {
            let client = try MPDTestClient.raw(port: port)
            _ = try client.readLine()
            for _ in 0..<100 {
                try client.send(String(repeating: "idle\nnoidle\n", count: 100))
                for _ in 0..<100 { #expect(try client.readLine() == "OK") }
            }
            try client.send("idle mixer\n")
            return client
        }
        try await harness.backend.perform(.setVolume(40))
        try await onThread { () throws -> Void in
            #expect(try client.readResponse() == "changed: mixer\nOK\n")
            #expect(try client.exchange("getvol") == "volume: 40\nOK\n")
        }
        try await harness.stop()
    }

    @Test func slowReadersAreDroppedWhenTheirOutputPilesUp() async throws {
        let songs = (0..<60_000).map { index in
            SongInfo(
                uri: "bulk/song \(index).flac", tags: [TagValue(.title, "Song number \(index)")],
                duration: 180, format: "44100:16:2", lastModified: 1_700_000_000)
        }
        let harness = try await ServerHarness.start(backend: InMemoryBackend(library: songs)) {
            $0.maxPendingOutputBytes = 256 * 1024
        }
        let port = harness.port
        try await onThread {
            let watcher = try MPDTestClient.raw(port: port)
            _ = try watcher.readLine()
            let slow = try MPDTestClient.raw(port: port, receiveBuffer: 4_096)
            _ = try slow.readLine()
            try slow.send("listallinfo\n")
            Thread.sleep(forTimeInterval: 2)
            #expect(try watcher.exchange("ping") == "OK\n")
            let received = try slow.readUntilClosed()
            // The answer (60,000 songs) is over the 256 KiB limit while it is produced: the client is dropped and,
            // as MPD does ("Output buffer is full"), none of the cut-off answer is sent.
            #expect(received.isEmpty, "\(received.count) bytes of a cut-off answer were sent")
            #expect(!String(decoding: received.suffix(4), as: UTF8.self).hasSuffix("OK\n"))
        }
        try await harness.stop()
    }

    static func randomLines(_ generator: inout SplitMix) -> String {
        let words = [
            "status", "idle", "noidle", "command_list_begin", "command_list_end", "play", "\"", "\\", "find",
            "(artist == '", "add", "../..", "-1", "999999999999", "list", "group", "sticker", "binarylimit", "\t",
        ]
        var text = ""
        for _ in 0..<200 {
            let count = Int(generator.next() % 5) + 1
            text +=
                (0..<count).map { _ in words[Int(generator.next() % UInt64(words.count))] }.joined(separator: " ")
                + "\n"
        }
        return text
    }
}

/// A tiny deterministic random number generator for reproducible garbage.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
