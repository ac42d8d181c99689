import Foundation
import MPDProtocol
import MPDTestSupport
import Testing
import TestSupport

/// `MPDTestClient`'s two modes hold the same conversation: the protocol session run in-process
/// (`MPDSessionTransport`) and the NIO server over TCP and over its Unix socket answer every line with the same
/// bytes. So a test written against the in-process mode says what a real client sees, and the server adds nothing
/// (framing, batching of pipelined lines, `idle`) that the session does not say.
///
/// The time limit is only a hang detector, above the clients' own stall bound (`Patience`): every line waits for a
/// thread of the cooperative pool, which a loaded machine can keep busy for tens of seconds at a time, so neither the
/// old 20 s reads nor a 2-minute limit on 81 such lines bounded anything but the load.
@Suite(.serialized, .timeLimit(.minutes(15))) struct InProcessParityTests {
    /// Lines sent one at a time: reads, edits, refusals, command lists, bad input, and the close.
    static let conversation = [
        "status", "add /", "playlistinfo", "playlistid 1", "setvol 40", "getvol", "setvol 300", "repeat 1",
        "status", "move 0 1", "playlistinfo", "delete 7", "command_list_ok_begin\nping\ngetvol\nbogus\ncommand_list_end",
        "command_list_begin\nrandom 1\nconsume 1\ncommand_list_end", "status", "find \"(artist == 'x'\"",
        "list album", "search any \"\"", "tagtypes", "plchanges 0", "currentsong",
        "seek 0 1.5", "ping \"unterminated", "clear", "status", "close",
    ]

    /// Sends the conversation through `client`, recording what came back for each line (and the greeting).
    static func transcript(_ client: MPDTestClient) throws -> [String] {
        var answers = [client.greeting]
        for line in conversation {
            if line == "close" {
                try client.send("close\n")
                answers.append("close → " + String(decoding: try client.readUntilClosed(), as: UTF8.self))
            } else {
                answers.append(line + " → " + (try client.exchange(line)))
            }
        }
        return answers
    }

    @Test func theSameLinesGetTheSameBytesInProcessOverTCPAndOverTheUnixSocket() async throws {
        let local = try await onThread {
            try Self.transcript(MPDTestClient(transport: MPDSessionTransport(backend: InMemoryBackend())))
        }
        let tcp = try await ServerHarness.start(backend: InMemoryBackend())
        let port = tcp.port
        let overTCP = try await onThread { try Self.transcript(MPDTestClient(port: port)) }
        try await tcp.stop()
        let unix = try await ServerHarness.start(backend: InMemoryBackend(), unixSocket: true)
        let path = unix.socketPath
        let overUnix = try await onThread { try Self.transcript(MPDTestClient(unixPath: path)) }
        try await unix.stop()

        #expect(local.count == Self.conversation.count + 1)
        #expect(local.first == "OK MPD \(SessionConfig.protocolVersion)")
        for (index, answer) in local.enumerated() {
            #expect(answer == overTCP[index], "line \(index): in-process vs TCP")
            #expect(answer == overUnix[index], "line \(index): in-process vs Unix socket")
        }
        // The conversation did reach the session: a refusal, a change and a command list are all in it.
        #expect(local.contains { $0.hasPrefix("setvol 300 → ACK [2@0] {setvol}") }, "\(local)")
        #expect(local.contains { $0.hasPrefix("getvol → volume: 40\n") }, "\(local)")
        #expect(local.contains { $0.contains("list_OK\nvolume: 40\nlist_OK\nACK [5@2] {} unknown command \"bogus\"\n") },
                "\(local)")
    }

    @Test func idleAnswersWhenTheBackendChangesInProcessAsOverASocket() async throws {
        let backend = InMemoryBackend()
        let watcher = try await onThread { try MPDTestClient(transport: MPDSessionTransport(backend: backend)) }
        let changer = try await onThread { try MPDTestClient(transport: MPDSessionTransport(backend: backend)) }
        let answer = try await onThread { () -> String in
            try watcher.send("idle mixer\n")
            #expect(try changer.exchange("setvol 20") == "OK\n")
            return try watcher.readResponse()
        }
        #expect(answer == "changed: mixer\nOK\n")
        // Nothing pending: a read waits for the timeout, as a socket's does.
        let silent = try await onThread { () -> String in
            watcher.setTimeout(0.2)
            return (try? watcher.readLine()).flatMap { $0 } ?? "timed out"
        }
        #expect(silent == "timed out")
    }
}
