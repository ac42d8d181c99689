import Foundation
import Testing
import TestSupport

/// A stream as a queue entry like any other: kept in a stored playlist and loaded from it, and played again after a restart (from the live edge: a saved position means nothing to a stream), even with
/// the music folder empty (a drive not mounted: the radio needs none; it used to wait for the drive).
@Suite(.serialized) struct StreamQueueTests {
    @Test func aStoredPlaylistTheCLIAndARestartKeepTheStream() async throws {
        let scratch = try TemporaryDirectory(prefix: "fermata-streamq")
        let server = try await onThread { try BackgroundTool("hostile_server.py", ["--port", "0"], scratch: scratch) }
        let url = "http://127.0.0.1:\(server.port)/ok.mp3?metaint=16000&title=Radio%20One"
        let first = try await onThread { try StreamDaemon() }
        try await onThread {
            try first.ok("playlistadd radio " + url.quoted)
            #expect(try first.ok("listplaylist radio").all("file") == [url])
            try first.ok("load radio")
            try first.ok("play")
        }
        let playing = try await Patience.wait { Double((try? first.status()["elapsed"]) ?? nil ?? "0") ?? 0 > 2 }
        #expect(playing, "\(first.log)")
        // Stopped with SIGTERM while playing, started again on the same state: it plays the stream again.
        let state = first.root
        #expect(try await onThread { first.stop() } == 0)
        let daemon = try await onThread { try StreamDaemon(reusing: state) }
        let again = try await Patience.wait {
            let status = try? daemon.status()
            return status?["state"] == "play" && Double(status?["elapsed"] ?? "0") ?? 0 > 1
        }
        #expect(again, "resumed:\n\(daemon.log)")
        // Its title comes with the stream's first metadata block, again.
        let titled = try await Patience.wait { (try? daemon.ok("currentsong").all("Title")) == ["Radio One"] }
        let song = try await onThread { try daemon.ok("currentsong") }
        #expect(titled && song.all("file") == [url], "\(song)")
        // The CLI says it is a stream, with its station and address, and no length.
        let cli = try await onThread {
            try ProgramResult.run(FermatadProcess.built("fermata"), ["status", "--host", "127.0.0.1",
                                                                     "--port", String(daemon.process.port)])
        }
        #expect(cli.status == 0 && cli.output.contains("stream   fermata hostile server  \(url)\n")
                && cli.output.contains("(live)"), "\(cli)")
        // Seeking in a stream is refused as MPD refuses it.
        let seek = try await onThread { try daemon.client().command("seekcur 10") }
        #expect(seek.ack == "ACK [5@0] {seekcur} Not seekable", "\(seek)")
        #expect(try await onThread { daemon.stop() } == 0)
    }
    /// A child's card names a radio station: the swipe plays it, under the card's volume cap; the same card again pauses
    /// it (the cards' `again` rule), as with any other target.
    @Test func aCardPlaysARadioStation() async throws {
        let scratch = try TemporaryDirectory(prefix: "fermata-streamcard")
        let server = try await onThread { try BackgroundTool("hostile_server.py", ["--port", "0"], scratch: scratch) }
        let url = "http://127.0.0.1:\(server.port)/ok.mp3?metaint=16000&title=Kids%20Radio"
        let daemon = try await onThread {
            try StreamDaemon(config: """
                [cards]
                again = "pause"

                [card-77]
                play = "\(url)"
                volume_max = 40
                """)
        }
        _ = try await onThread { try daemon.ok("setvol 90") }
        _ = try await onThread { try daemon.ok("cardread 77") }
        let playing = try await Patience.wait {
            let status = try? daemon.status()
            return status?["state"] == "play" && Double(status?["elapsed"] ?? "0") ?? 0 > 1
        }
        #expect(playing, "\(daemon.log)")
        let titled = try await Patience.wait { (try? daemon.ok("currentsong").all("Title")) == ["Kids Radio"] }
        let queued = try await onThread { try daemon.ok("playlistinfo").all("file") }
        #expect(titled && queued == [url], "\(queued)")
        let volume = try await onThread { try daemon.status()["volume"] }
        #expect(volume == "40", "the card's cap")
        _ = try await onThread { try daemon.ok("cardread 77") }
        #expect(try await Patience.wait { (try? daemon.status()["state"]) == "pause" }, "the same card again pauses")
        #expect(try await onThread { daemon.stop() } == 0)
    }
}
