import Foundation
import Testing

/// Where fermatad answered differently from MPD in issue 16's side-by-side `mpc` run, against the real daemon:
/// `next`/`previous` while paused play (stopped: `Not playing`); a missing file in `add` and `ls ../` are `No such directory`; `move -1 0` is
/// refused; `plchanges -1` lists the whole queue.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct MPDParityTests {
    typealias M = MusicFixture

    @Test func nextAndPreviousWhilePausedPlay() async throws {
        try await Daemon.with { daemon async throws in
            for track in [M.uno, M.dos, M.uno] { try await daemon.ok("add \"\(track.path)\"") }
            try await daemon.ok("repeat 1")
            try await daemon.ok("single 1")  // hold the song skipped to: the checks below read it while it plays
            try await daemon.ok("play 0")
            try await daemon.ok("pause 1")
            #expect(try await daemon.status { $0["state"] == "pause" }["state"] == "pause")

            let next = try await daemon.mpc("next").output.lines
            #expect(next.count == 3 && next[0] == "Beta - Dos" && next[1].hasPrefix("[playing] #2/3 "), "\(next)")
            let playing = try await daemon.status { $0["state"] == "play" }
            #expect(playing["state"] == "play" && playing["song"] == "1", "\(playing)")

            try await daemon.ok("pause 1")
            #expect(try await daemon.status { $0["state"] == "pause" }["state"] == "pause")
            try await daemon.ok("previous")
            let back = try await daemon.status { $0["state"] == "play" }
            #expect(back["state"] == "play" && back["song"] == "0", "\(back)")
            try await daemon.ok("stop")
            #expect(try await daemon.command("next").ack == "ACK [55@0] {next} Not playing", "MPD refuses when stopped")
            #expect(try await daemon.status()["song"] == "0", "the stopped cursor stays")
        }
    }

    @Test func refusalsAreWordedAsMPDs() async throws {
        try await Daemon.with { daemon async throws in
            try await daemon.ok("add Beta")
            let missing = "nonexistent/file.flac"
            #expect(try await daemon.command("add \(missing)").ack == "ACK [50@0] {add} No such directory")
            let mpcAdd = try await daemon.mpc("add", missing)
            #expect(mpcAdd.status == 1 && mpcAdd.stderr == "error adding \(missing): No such directory\n", "\(mpcAdd)")
            #expect(try await daemon.command("lsinfo \"../\"").ack == "ACK [50@0] {lsinfo} No such directory")
            let ls = try await daemon.mpc("ls", "../")
            #expect(ls.status == 1 && ls.stderr.contains("No such directory"), "\(ls)")

            let version = try await daemon.status()["playlist"]
            let move = try await daemon.command("move -1 0")
            #expect(move.ack == "ACK [2@0] {move} Open-ended range not supported", "\(move)")
            #expect(try await daemon.status()["playlist"] == version, "the queue did not change")

            #expect(try await daemon.ok("plchanges -1").all("file") == [M.uno.path, M.dos.path, M.tres.path])
            #expect(try await daemon.ok("plchangesposid -1 2:").all("cpos") == ["2"])
            #expect(try await daemon.ok("update nosuch/dir")["updating_db"] != nil, "MPD queues it")
            #expect(try await daemon.command("addid Beta").ack == "ACK [50@0] {addid} No such song", "one song only")
            #expect(try await daemon.command("addid Beta/nosuch.flac").ack == "ACK [50@0] {addid} No such song")
            #expect(try await daemon.queue() == [M.uno.path, M.dos.path, M.tres.path])
        }
    }
}
