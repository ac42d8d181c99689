import FermataCore
import MPDProtocol
import MPDTestSupport
import Testing

/// Issue 13: a 2.4 KB command list of `playlistinfo`/`listallinfo` made the daemon accumulate gigabytes before the
/// server looked at its output limit. Output is now bounded while it is produced: a response stops at its cap, a
/// command list stops as soon as its output reaches the limit, and the client is dropped (MPD's behaviour when its
/// `max_output_buffer_size` is reached). Bytes are measured, never time.
@Suite struct OutputLimitTests {
    static let songCount = 2_000
    static let limit = 64 * 1024

    /// A backend whose library (and queue, once `add big` ran) holds `songCount` songs.
    static func largeBackend() -> InMemoryBackend {
        InMemoryBackend(library: (0..<songCount).map { index in
            SongInfo(
                uri: "big/\(index) some track name.flac",
                tags: [TagValue(.title, "Title number \(index)"), TagValue(.artist, "An Artist"),
                       TagValue(.album, "An Album")],
                duration: 123.4, format: "44100:16:2", lastModified: 1_700_000_000)
        })
    }

    /// The most bytes one queue song prints as.
    static func largestSong(_ executor: CommandExecutor) async -> Int {
        let settings = executor.config.initialClientSettings
        let one = await executor.run(
            CommandBatch(lines: [Array("playlistinfo \(songCount - 1)".utf8)], mode: .single), client: settings)
        return one.output.count - "OK\n".utf8.count
    }

    static func queued() async -> CommandExecutor {
        let executor = CommandExecutor(backend: largeBackend(), config: SessionConfig())
        let added = await executor.run(
            CommandBatch(lines: [Array("add big".utf8)], mode: .single), client: executor.config.initialClientSettings)
        #expect(added.output == Array("OK\n".utf8))
        return executor
    }

    @Test func aCommandListOfManyPlaylistinfoStopsAtTheLimit() async {
        let executor = await Self.queued()
        let song = await Self.largestSong(executor)
        let lines = Array(repeating: Array("playlistinfo".utf8), count: 1_000)
        let result = await executor.run(
            CommandBatch(lines: lines, mode: .list(ok: true)), client: executor.config.initialClientSettings,
            outputLimit: Self.limit)
        #expect(result.outcome == .close)
        #expect(result.outputLimitReached)
        #expect(result.output.count >= Self.limit)
        #expect(result.output.count <= Self.limit + song, "\(result.output.count) bytes for a \(Self.limit) limit")
        #expect(!String(decoding: result.output, as: UTF8.self).hasSuffix("OK\n"))
    }

    @Test func oneLargeAnswerStopsAtTheLimitToo() async {
        let executor = await Self.queued()
        let song = await Self.largestSong(executor)
        for command in ["playlistinfo", "listallinfo", "find artist \"An Artist\"", "plchanges 0", "listall"] {
            let result = await executor.run(
                CommandBatch(lines: [Array(command.utf8)], mode: .single),
                client: executor.config.initialClientSettings, outputLimit: Self.limit)
            #expect(result.outcome == .close, "\(command)")
            #expect(result.output.count <= Self.limit + song, "\(command): \(result.output.count) bytes")
        }
    }

    @Test func answersWithinTheLimitAreUntouched() async {
        let executor = await Self.queued()
        let settings = executor.config.initialClientSettings
        let unlimited = await executor.run(
            CommandBatch(lines: [Array("playlistinfo 0:50".utf8), Array("status".utf8)], mode: .list(ok: true)),
            client: settings)
        let limited = await executor.run(
            CommandBatch(lines: [Array("playlistinfo 0:50".utf8), Array("status".utf8)], mode: .list(ok: true)),
            client: settings, outputLimit: Self.limit)
        #expect(limited == unlimited)
        #expect(limited.outcome == .continue)
        #expect(!limited.outputLimitReached)
    }

    @Test func theSessionDropsTheClientAtTheLimit() async {
        var driver = SessionDriver(backend: Self.largeBackend(), outputLimit: Self.limit)
        #expect(await driver.send("add big") == "OK\n")
        let request = "command_list_begin\n" + String(repeating: "playlistinfo\n", count: 200) + "command_list_end"
        let output = await driver.send(request)
        #expect(driver.closed)
        #expect(output.utf8.count <= Self.limit + 512)
        #expect(await driver.send("status") == "", "nothing is answered once the client is dropped")
    }

    @Test func aResponseDropsWritesOnceFull() {
        var response = Response(limit: 20)
        response.line("file", "0123456789")
        #expect(!response.isFull)
        response.line("Title", "0123456789")
        #expect(response.isFull)
        let full = response.bytes.count
        response.line("Artist", "x")
        response.binary([1, 2, 3])
        let copy = response
        response.append(copy)
        #expect(response.bytes.count == full)
        #expect(Response().limit == .max)
    }
}
