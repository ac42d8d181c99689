import Foundation
import Testing

/// `mpc` against the database side of `fermatad`: browsing, searching, listing, adding by query, updating,
/// stored playlists, stickers and cover art.
extension MPCTests {
    @Test func browsing() async throws {
        let beta = [M.uno, M.dos, M.tres].map { $0.path + "\n" }.joined()
        try await Daemon.with { daemon async throws in
            #expect(try await daemon.mpc("ls").output == "Alpha Band\nBeta\n")
            #expect(try await daemon.mpc("ls", "Alpha Band").output == "Alpha Band/First Album\n")
            #expect(try await daemon.mpc("ls", "Beta/Second").output == beta)
            #expect(try await daemon.mpc("ls", M.uno.path).output == M.uno.path + "\n")
            let missing = try await daemon.mpc("ls", "Gamma")
            #expect(missing.status == 1 && missing.stderr == "MPD error: No such directory\n", "\(missing)")
            #expect(try await daemon.mpc("listall").output == M.tracks.map { $0.path + "\n" }.joined())
            #expect(try await daemon.mpc("listall", "Beta").output == beta)
        }
    }

    @Test func searchFindAndList() async throws {
        try await Daemon.with { daemon async throws in
            let lines = { (tracks: [MusicFixture.Track]) in tracks.map { $0.path + "\n" }.joined() }
            #expect(try await daemon.mpc("search", "title", "o").output == lines([M.one, M.two, M.uno, M.dos]))
            #expect(try await daemon.mpc("search", "any", "alpha").output == lines([M.one, M.two]))
            #expect(try await daemon.mpc("find", "artist", "Beta").output == lines([M.uno, M.dos, M.tres]))
            #expect(try await daemon.mpc("find", "album", "First Album", "title", "Two").output == lines([M.two]))
            #expect(try await daemon.mpc("find", "title", "one").output == "", "find is exact")
            #expect(try await daemon.mpc("find", "date", "2001").output == lines([M.one, M.two]))
            #expect(try await daemon.mpc("find", "genre", "Jazz").output == lines([M.uno, M.dos, M.tres]))

            #expect(try await daemon.mpc("list", "artist").output == "Alpha Band\nBeta\n")
            #expect(try await daemon.mpc("list", "album").output == "First Album\nSecond\n")
            #expect(try await daemon.mpc("list", "album", "group", "artist").output
                == "Alpha Band\n    First Album\nBeta\n    Second\n")
            #expect(try await daemon.mpc("list", "title", "artist", "Beta").output == "Dos\nTres\nUno\n")
            #expect(try await daemon.mpc("list", "genre").output == "Jazz\nRock\n")
            #expect(try await daemon.mpc("list", "date").output == "2001\n2010\n")
        }
    }

    @Test func addingByQuery() async throws {
        try await Daemon.with { daemon async throws in
            #expect(try await daemon.mpc("findadd", "artist", "Beta").status == 0)
            #expect(try await daemon.queue() == [M.uno.path, M.dos.path, M.tres.path])
            #expect(try await daemon.mpc("searchadd", "title", "tw").status == 0)
            #expect(try await daemon.queue() == [M.uno.path, M.dos.path, M.tres.path, M.two.path])
            #expect(try await daemon.mpc("playlist").output
                == "Beta - Uno\nBeta - Dos\nBeta - Tres\nAlpha Band - Two\n")
            #expect(try await daemon.mpc("findadd", "artist", "Nobody").status == 0)
            #expect(try await daemon.queue().count == 4)

            // searchplay: playlistsearch, then playid. Single and repeat keep Dos (0.5 s) playing, so a loaded
            // machine's late status does not find the songs after it.
            #expect(try await daemon.mpc("single", "on").status == 0)
            #expect(try await daemon.mpc("repeat", "on").status == 0)
            #expect(try await daemon.mpc("searchplay", "Dos").status == 0)
            let playing = try await daemon.status { $0["state"] == "play" }
            #expect(playing["songid"] == "2" && playing["song"] == "1", "\(playing)")
            #expect(try await daemon.mpc("stop").status == 0)
        }
    }

    @Test func updateAndRescan() async throws {
        try await Daemon.with { daemon async throws in
            try MusicFixture.writeFLAC(daemon.music + "/Beta/Second/04 Cuatro.flac", seconds: 0.5, tags: [
                "TITLE": "Cuatro", "ARTIST": "Beta", "ALBUM": "Second", "TRACKNUMBER": "4",
            ])
            let update = try await daemon.mpc("update", "--wait")
            #expect(update.status == 0 && update.output.hasSuffix(Self.modesOff), "\(update)")
            #expect(try await daemon.mpc("listall", "Beta").output.lines.last == "Beta/Second/04 Cuatro.flac")
            #expect(try await daemon.mpc("stats").output.contains("Songs:        6\n"))
            #expect(try await daemon.ok("count artist Beta")["songs"] == "4")

            #expect(try await daemon.mpc("rescan", "--wait").status == 0)
            #expect(try await daemon.mpc("listall").output.lines.count == 6)

            // `update DIR` scans that folder only (MPD's rule): a file added elsewhere waits for its own update.
            try FileManager.default.removeItem(atPath: daemon.music + "/Beta/Second/04 Cuatro.flac")
            let elsewhere = "Alpha Band/First Album/03 Tres.flac"
            try MusicFixture.writeFLAC(daemon.music + "/" + elsewhere, seconds: 0.5, tags: ["TITLE": "Tres"])
            #expect(try await daemon.mpc("update", "--wait", "Beta").status == 0)
            #expect(try await daemon.mpc("listall").output == M.tracks.map { $0.path + "\n" }.joined())
            #expect(try await daemon.mpc("stats").output.contains("Songs:        5\n"))
            #expect(try await daemon.mpc("update", "--wait", "Alpha Band/First Album").status == 0)
            #expect(try await daemon.mpc("listall", "Alpha Band").output.lines.last == elsewhere)
        }
    }

    /// `listall`/`listallinfo` answers are kept while the library is unchanged (`ListingCache`): a kept answer must
    /// never outlive a change, nor go to a client with other tag types.
    @Test func keptListingsFollowTheLibraryAndEachClientsTags() async throws {
        try await Daemon.with { daemon async throws in
            let before = try await daemon.ok("listallinfo")
            #expect(try await daemon.ok("listallinfo").description == before.description)
            #expect(before.all("file") == M.tracks.map(\.path))
            #expect(try await daemon.ok("listall").all("file") == M.tracks.map(\.path))
            let new = "Beta/Second/04 Cuatro.flac"
            try MusicFixture.writeFLAC(daemon.music + "/" + new, seconds: 0.5, tags: ["TITLE": "Cuatro", "ARTIST": "Beta"])
            #expect(try await daemon.mpc("update", "--wait").status == 0)
            let after = try await daemon.ok("listallinfo")
            #expect(after.all("file") == M.tracks.map(\.path) + [new])
            #expect(after.all("Title").last == "Cuatro")
            #expect(try await daemon.ok("listall").all("file").last == new)
            // Another client's tag types get their own answer; then the first kind is rebuilt, not mixed up.
            let other = try await daemon.ok("command_list_begin\ntagtypes clear\ntagtypes enable Title\nlistallinfo\ncommand_list_end")
            #expect(!other.pairs.contains { $0.key == "Artist" } && other.all("Title").last == "Cuatro", "\(other)")
            #expect(try await daemon.ok("listallinfo").description == after.description)
            try FileManager.default.removeItem(atPath: daemon.music + "/" + new)
            #expect(try await daemon.mpc("update", "--wait").status == 0)
            #expect(try await daemon.ok("listallinfo").description == before.description)

            // A retagged file is a change too, though the scan rewrites its row in place and adds or removes nothing.
            // Failed on the release before: the kept answer still said "Uno" while `find` said "Uno, retitled".
            let retitled = "Uno, retitled"
            try MusicFixture.writeFLAC(daemon.music + "/" + M.uno.path, seconds: M.uno.seconds, tags: [
                "TITLE": retitled, "ARTIST": M.uno.artist, "ALBUM": M.uno.album, "TRACKNUMBER": String(M.uno.number),
                "DATE": M.uno.date, "GENRE": M.uno.genre,
            ])
            #expect(try await daemon.mpc("update", "--wait").status == 0)
            #expect(try await daemon.ok("find title \"\(retitled)\"").all("file") == [M.uno.path])
            let titles = try await daemon.ok("listallinfo").all("Title")
            #expect(titles == M.tracks.map { $0.path == M.uno.path ? retitled : $0.title }, "\(titles)")
        }
    }

    @Test func storedPlaylists() async throws {
        try await Daemon.with { daemon async throws in
            #expect(try await daemon.mpc("add", "Alpha Band").status == 0)
            #expect(try await daemon.mpc("save", "mix").status == 0)
            #expect(try await daemon.mpc("lsplaylists").output == "mix\n")
            #expect(try await daemon.ok("listplaylists").all("playlist") == ["mix"])
            #expect(try await daemon.mpc("playlist", "mix").output == "Alpha Band - One\nAlpha Band - Two\n")
            let again = try await daemon.mpc("save", "mix")
            #expect(again.status == 1 && again.stderr == "MPD error: Playlist already exists\n", "\(again)")

            #expect(try await daemon.mpc("clear").status == 0)
            #expect(try await daemon.mpc("load", "mix").output == "loading: mix\n")
            #expect(try await daemon.queue() == [M.one.path, M.two.path])
            #expect(try await daemon.mpc("--range=1:", "load", "mix").status == 0)
            #expect(try await daemon.queue() == [M.one.path, M.two.path, M.two.path])

            #expect(try await daemon.mpc("rm", "mix").status == 0)
            #expect(try await daemon.mpc("lsplaylists").output == "")
            let gone = try await daemon.mpc("rm", "mix")
            #expect(gone.status == 1 && gone.stderr == "MPD error: No such playlist\n", "\(gone)")
            let load = try await daemon.mpc("load", "mix")
            #expect(load.status == 1 && load.stderr.contains("No such playlist"), "\(load)")
        }
    }

    @Test func stickers() async throws {
        try await Daemon.with { daemon async throws in
            let uno = M.uno.path
            #expect(try await daemon.mpc("sticker", uno, "set", "rating", "5").status == 0)
            #expect(try await daemon.mpc("sticker", uno, "set", "mood", "calm").status == 0)
            #expect(try await daemon.mpc("sticker", M.one.path, "set", "rating", "3").status == 0)
            #expect(try await daemon.mpc("sticker", uno, "get", "rating").output == "rating=5\n")
            #expect(try await daemon.ok("sticker get song \"\(uno)\" rating")["sticker"] == "rating=5")
            #expect(try await daemon.mpc("sticker", uno, "list").output == "mood=calm\nrating=5\n")
            #expect(try await daemon.mpc("sticker", "Beta", "find", "rating").output == "\(uno): rating=5\n")
            let everywhere = try await daemon.mpc("sticker", "", "find", "rating").output.lines.sorted()
            #expect(everywhere == ["\(M.one.path): rating=3", "\(uno): rating=5"])

            #expect(try await daemon.mpc("sticker", uno, "delete", "mood").status == 0)
            #expect(try await daemon.mpc("sticker", uno, "list").output == "rating=5\n")
            let deleted = try await daemon.mpc("sticker", uno, "get", "mood")
            #expect(deleted.status == 1 && deleted.stderr == "MPD error: no such sticker: \"mood\"\n", "\(deleted)")
            let noSong = try await daemon.mpc("sticker", "Beta/None.flac", "get", "rating")
            #expect(noSong.status == 1 && noSong.stderr == "MPD error: No such song\n", "\(noSong)")
        }
    }

    @Test func albumArtAndReadPicture() async throws {
        try await Daemon.with { daemon async throws in
            let art = try await daemon.mpc("albumart", M.one.path)
            #expect(art.status == 0 && [UInt8](art.stdout) == M.cover, "\(art.stdout.count) bytes, \(art.stderr)")
            let none = try await daemon.mpc("albumart", M.uno.path)
            #expect(none.status == 1 && none.stdout.isEmpty && none.stderr.hasPrefix("MPD error: "), "\(none)")
            let picture = try await daemon.mpc("readpicture", M.uno.path)
            #expect(picture.status == 0 && picture.stderr.contains("No data"), "\(picture)")
        }
    }
}
