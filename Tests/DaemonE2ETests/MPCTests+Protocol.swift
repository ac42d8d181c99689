import Foundation
import TestSupport
import Testing

/// The commands `mpc` 0.34 has no verb for (addid, deleteid, moveid, playid, seekid, getvol, playlistid, plchanges,
/// playlistfind, count, listallinfo, listfiles, rename, playlistadd/clear/delete/move, tagtypes), sent over a raw
/// connection to the same daemon; and the status read-back guarantees MPD clients rely on.
extension MPCTests {
    static let songKeys: Set<String> = ["file", "Title", "Pos", "Id"]

    @Test func queueCommandsByID() async throws {
        try await Daemon.with { daemon async throws in
            let uno = try await daemon.ok("addid \"\(M.uno.path)\"")["Id"] ?? ""
            let one = try await daemon.ok("addid \"\(M.one.path)\" 0")["Id"] ?? ""
            #expect(try await daemon.queue() == [M.one.path, M.uno.path])
            #expect(try await daemon.ok("playlistid \(one)").lines(Self.songKeys)
                == "file: \(M.one.path)\nTitle: One\nPos: 0\nId: \(one)\n")
            let version = try await daemon.status()["playlist"] ?? ""
            try await daemon.ok("moveid \(one) 1")
            #expect(try await daemon.queue() == [M.uno.path, M.one.path])
            #expect(try await daemon.ok("plchanges \(version)").all("Id") == [uno, one])
            let now = try await daemon.status()["playlist"] ?? ""
            #expect(try await daemon.ok("plchanges \(now)").pairs.isEmpty)
            #expect(try await daemon.ok("playlistfind title One").all("Id") == [one])
            #expect(try await daemon.ok("playlistfind title one").all("Id") == [], "playlistfind is exact")
            #expect(try await daemon.ok("playlistsearch artist alp").all("Id") == [one])
            try await daemon.ok("deleteid \(one)")
            #expect(try await daemon.queue() == [M.uno.path])
            #expect(try await daemon.command("deleteid \(one)").ack == "ACK [50@0] {deleteid} No such song")
            #expect(try await daemon.command("moveid 999 0").ack == "ACK [50@0] {moveid} No such song")
            #expect(try await daemon.command("playlistid 999").ack == "ACK [50@0] {playlistid} No such song")

            try await daemon.ok("playid \(uno)")
            #expect(try await daemon.status { $0["state"] == "play" }["songid"] == uno)
            try await daemon.ok("seekid \(uno) 1")
            let sought = try await daemon.status { Double($0["elapsed"] ?? "") ?? 0 >= 1 }
            #expect(sought["songid"] == uno && (Double(sought["elapsed"] ?? "") ?? 0) >= 1, "\(sought)")
            #expect(try await daemon.command("seekid 999 1").ack == "ACK [50@0] {seekid} No such song")
            try await daemon.ok("seek 0 0.25")
            let back = try await daemon.status { (Double($0["elapsed"] ?? "") ?? 9) < 1 }
            #expect(back["songid"] == uno && (Double(back["elapsed"] ?? "") ?? 9) < 1, "seek back to 0.25 s: \(back)")
            #expect(try await daemon.command("seek 5 1").ack == "ACK [2@0] {seek} Bad song index")
            try await daemon.ok("stop")
        }
    }

    @Test func volumeCommands() async throws {
        try await Daemon.with { daemon async throws in
            try await daemon.ok("setvol 30")
            #expect(try await daemon.ok("getvol")["volume"] == "30")
            try await daemon.ok("volume +10")
            #expect(try await daemon.ok("getvol")["volume"] == "40")
            try await daemon.ok("volume -50")
            #expect(try await daemon.status()["volume"] == "0")
            #expect(try await daemon.command("setvol 101").ack == "ACK [2@0] {setvol} Number too large: 101")
            #expect(try await daemon.command("replay_gain_mode loud").ack
                == "ACK [2@0] {replay_gain_mode} Unrecognized replay gain mode")
            #expect(try await daemon.ok("replay_gain_status")["replay_gain_mode"] == "off")
        }
    }

    @Test func databaseCommandsWithoutAnMPCVerb() async throws {
        try await Daemon.with { daemon async throws in
            #expect(try await daemon.ok("count artist Beta").description == "songs: 3\nplaytime: 4\n")
            #expect(try await daemon.ok("count group artist").description
                == "Artist: Alpha Band\nsongs: 2\nplaytime: 2\nArtist: Beta\nsongs: 3\nplaytime: 4\n")
            #expect(try await daemon.ok("list album group artist").description
                == "Artist: Alpha Band\nAlbum: First Album\nArtist: Beta\nAlbum: Second\n")
            #expect(try await daemon.ok("lsinfo").description == "directory: Alpha Band\ndirectory: Beta\n")
            let info = try await daemon.ok("lsinfo \"\(M.uno.path)\"")
            #expect(info.lines(["file", "Artist", "Album", "Title", "Track", "Genre", "Date", "duration"]) == """
                file: \(M.uno.path)
                Artist: Beta
                Album: Second
                Title: Uno
                Track: 1
                Genre: Jazz
                Date: 2010
                duration: 2.000

                """)
            let all = try await daemon.ok("listallinfo \"Alpha Band\"")
            #expect(all.lines(["directory", "file", "Title"]) == """
                directory: Alpha Band/First Album
                file: \(M.one.path)
                Title: One
                file: \(M.two.path)
                Title: Two

                """)
            let files = try await daemon.ok("listfiles \"\(MusicFixture.coverAlbum)\"")
            #expect(files.all("file") == ["01 One.flac", "02 Two.flac", "cover.jpg"])
            #expect(files.all("size").last == String(MusicFixture.cover.count))

            let types = try await daemon.ok("tagtypes").all("tagtype")
            #expect(Set(["Artist", "Album", "Title", "Track", "Genre", "Date"]).isSubset(of: types), "\(types)")
            let tagged = try await onThread { () -> [MPDReply] in
                let link = try MPDTestClient(port: daemon.port)
                return try ["tagtypes clear", "lsinfo \"\(M.uno.path)\"", "tagtypes enable Title",
                            "lsinfo \"\(M.uno.path)\"", "tagtypes all", "lsinfo \"\(M.uno.path)\""].map(link.command)
            }
            #expect(tagged[1]["Title"] == nil && tagged[1]["Artist"] == nil && tagged[1]["file"] == M.uno.path)
            #expect(tagged[3]["Title"] == "Uno" && tagged[3]["Artist"] == nil)
            #expect(tagged[5]["Title"] == "Uno" && tagged[5]["Artist"] == "Beta")
        }
    }

    @Test func storedPlaylistEditing() async throws {
        try await Daemon.with { daemon async throws in
            try await daemon.ok("playlistadd p1 \"\(M.uno.path)\"")
            try await daemon.ok("playlistadd p1 \"Alpha Band\"")
            #expect(try await daemon.ok("listplaylist p1").all("file") == [M.uno.path, M.one.path, M.two.path])
            #expect(try await daemon.ok("listplaylistinfo p1").all("Title") == ["Uno", "One", "Two"])
            try await daemon.ok("playlistmove p1 0 2")
            #expect(try await daemon.ok("listplaylist p1").all("file") == [M.one.path, M.two.path, M.uno.path])
            try await daemon.ok("playlistdelete p1 1")
            #expect(try await daemon.ok("listplaylist p1").all("file") == [M.one.path, M.uno.path])
            try await daemon.ok("rename p1 p2")
            #expect(try await daemon.ok("listplaylists").all("playlist") == ["p2"])
            #expect(try await daemon.command("listplaylist p1").ack == "ACK [50@0] {listplaylist} No such playlist")
            #expect(try await daemon.mpc("playlist", "p2").output == "Alpha Band - One\nBeta - Uno\n")
            try await daemon.ok("playlistclear p2")
            #expect(try await daemon.ok("listplaylist p2").pairs.isEmpty)
            // As MPD 0.23: a range at the end is clipped to nothing, one past it is refused; clearing a missing
            // playlist is `No such playlist`; a position past the end is `Bad position`.
            #expect(try await daemon.command("playlistdelete p2 0").ack == nil)
            #expect(try await daemon.command("playlistdelete p2 1").ack == "ACK [2@0] {playlistdelete} Bad song index")
            #expect(try await daemon.command("playlistclear nope").ack == "ACK [50@0] {playlistclear} No such playlist")
            #expect(try await daemon.command("playlistadd p2 \"\(M.uno.path)\" 1").ack
                    == "ACK [2@0] {playlistadd} Bad position")
            try await daemon.ok("rm p2")
            #expect(try await daemon.ok("listplaylists").pairs.isEmpty)
        }
    }

    /// MPD answers `seek` while paused by moving the paused position: `status` shows the new `elapsed` at once.
    @Test func seekWhilePausedShowsTheNewPosition() async throws {
        try await Daemon.with { daemon async throws in
            try await daemon.ok("add \"\(M.uno.path)\"")
            try await daemon.ok("play 0")
            _ = try await daemon.status { $0["state"] == "play" }
            try await daemon.ok("pause 1")
            try await daemon.ok("seekcur 1.5")
            let paused = try await daemon.status { $0["elapsed"] == "1.500" }
            #expect(paused["state"] == "pause" && paused["elapsed"] == "1.500", "\(paused)")
        }
    }

    /// After `next` has answered OK, `status` and `currentsong` name the new song (MPD updates them synchronously).
    @Test func statusShowsTheNewSongOnceNextHasAnswered() async throws {
        try await Daemon.with { daemon async throws in
            try await daemon.ok("add Beta")
            let replies = try await onThread { () -> [MPDReply] in
                let link = try MPDTestClient(port: daemon.port)
                var replies: [MPDReply] = []
                for _ in 0..<5 {
                    _ = try link.command("play 0")
                    usleep(100_000)
                    replies.append(try link.command("command_list_begin\nnext\nstatus\ncommand_list_end"))
                }
                _ = try link.command("command_list_begin\nplay 0\npause 1\ncommand_list_end")
                _ = try link.command("next")
                usleep(300_000)
                replies.append(try link.command("command_list_begin\nstatus\ncurrentsong\ncommand_list_end"))
                return replies
            }
            for reply in replies.prefix(5) {
                #expect(reply["song"] == "1", "status right after next while playing:\n\(reply)")
            }
            let paused = replies[5]
            #expect(paused["song"] == "1" && paused["Title"] == "Dos", "300 ms after next while paused:\n\(paused)")
        }
    }
}
