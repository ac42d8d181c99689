import FermataCore
import MPDProtocol
import MPDTestSupport
import Testing

/// MPD 0.24's additions (issue 16), against the in-memory backend, with MPD 0.24's answers: `playlistlength`,
/// `searchcount`, `searchplaylist`, `protocol`, `tagtypes available`/`reset`, the `Added` attribute and the
/// `added-since` filter, `save`'s modes, and the `OK MPD 0.24.0` greeting.
@Suite struct Protocol024Tests {
    /// A driver with the sample library queued and saved as the stored playlist `p`.
    func saved() async -> SessionDriver {
        var driver = SessionDriver()
        _ = await driver.send("add /\nsave p\ntagtypes clear")
        return driver
    }

    @Test func greetingAnnounces024() {
        #expect(String(decoding: ConnectionSession.greeting, as: UTF8.self) == "OK MPD 0.24.0\n")
    }

    @Test func playlistlengthCountsSongsAndRoundedPlaytime() async {
        var driver = await saved()
        // 150.5 + 240.25 + 300 + 200 + 10 = 900.75 s: MPD rounds the total to the nearest second.
        #expect(await driver.send("playlistlength p") == "songs: 5\nplaytime: 901\nOK\n")
        _ = await driver.send("playlistclear e")
        #expect(await driver.send("playlistlength e") == "songs: 0\nplaytime: 0\nOK\n")
        #expect(await driver.send("playlistlength nosuch") == "ACK [50@0] {playlistlength} No such playlist\n")
    }

    @Test func searchcountFoldsCaseWhereCountDoesNot() async {
        var driver = SessionDriver()
        #expect(await driver.send("count artist \"j. s. bach\"") == "songs: 0\nplaytime: 0\nOK\n")
        #expect(await driver.send("searchcount artist \"j. s. bach\"") == "songs: 3\nplaytime: 690\nOK\n")
        #expect(
            await driver.send("searchcount \"(title contains 'GYMNO')\" group artist")
                == "Artist: Erik Satie\nsongs: 1\nplaytime: 200\nOK\n")
    }

    @Test func searchplaylistPrintsMatchesWithTheirPositions() async {
        var driver = await saved()
        #expect(
            await driver.send("searchplaylist p \"(album contains 'GOLDBERG')\"") == """
                file: Bach/Goldberg/01 Aria.flac
                Last-Modified: 2023-11-14T22:46:42Z
                Format: 44100:16:2
                Time: 300
                duration: 300.000
                Pos: 2
                OK

                """)
        let window = await driver.send("searchplaylist p \"(artist == 'J. S. Bach')\" window 1:3")
        #expect(window.components(separatedBy: "\nPos: ").count == 3 && window.hasSuffix("Pos: 2\nOK\n"), "\(window)")
        #expect(window.hasPrefix("file: Bach/Cello Suites/02 Allemande.flac\n"))
        #expect(await driver.send("searchplaylist p \"(artist == 'nobody')\"") == "OK\n")
        #expect(await driver.send("searchplaylist nosuch any x") == "ACK [50@0] {searchplaylist} No such playlist\n")
    }

    @Test func protocolFeaturesPerConnection() async {
        var driver = await saved()
        #expect(await driver.send("protocol") == "OK\n")
        #expect(await driver.send("protocol available") == "feature: hide_playlists_in_root\nOK\n")
        #expect(await driver.send("lsinfo").contains("playlist: p\n"))
        #expect(await driver.send("protocol enable HIDE_playlists_in_root\nprotocol")
            == "OK\nfeature: hide_playlists_in_root\nOK\n")
        let hidden = await driver.send("lsinfo")
        #expect(!hidden.contains("playlist: ") && hidden.contains("directory: Bach\n"), "\(hidden)")
        #expect(await driver.send("protocol disable hide_playlists_in_root\nprotocol") == "OK\nOK\n")
        #expect(await driver.send("protocol all\nprotocol") == "OK\nfeature: hide_playlists_in_root\nOK\n")
        #expect(await driver.send("protocol clear\nprotocol") == "OK\nOK\n")
        #expect(await driver.send("protocol enable bogus") == "ACK [2@0] {protocol} Unknown protocol feature\n")
        #expect(await driver.send("protocol enable") == "ACK [2@0] {protocol} Not enough arguments\n")
        #expect(await driver.send("protocol all x") == "ACK [2@0] {protocol} Too many arguments\n")
        #expect(await driver.send("protocol frob") == "ACK [2@0] {protocol} Unknown sub command\n")
        var other = SessionDriver(backend: driver.backend)
        #expect(await other.send("protocol") == "OK\n")
    }

    @Test func tagtypesAvailableAndReset() async {
        var driver = SessionDriver()
        let available = await driver.send("tagtypes clear\ntagtypes available")
        #expect(available == "OK\n" + TagType.allCases.map { "tagtype: \($0.rawValue)\n" }.joined() + "OK\n")
        #expect(
            await driver.send("tagtypes reset Title ARTIST\ntagtypes") == "OK\ntagtype: Artist\ntagtype: Title\nOK\n")
        #expect(await driver.send("tagtypes reset") == "ACK [2@0] {tagtypes} Not enough arguments\n")
        #expect(await driver.send("tagtypes reset Bogus") == "ACK [2@0] {tagtypes} Unknown tag type\n")
        #expect(await driver.send("tagtypes available x") == "ACK [2@0] {tagtypes} Too many arguments\n")
    }

    @Test func addedAttributeAndAddedSinceFilter() async {
        let backend = InMemoryBackend(library: [
            SongInfo(
                uri: "old.flac", tags: [TagValue(.title, "Old")], lastModified: 1_600_000_000, added: 1_700_000_000),
            SongInfo(uri: "new.flac", tags: [TagValue(.title, "New")], added: 1_800_000_000),
            SongInfo(uri: "unknown.flac", tags: [TagValue(.title, "Unknown")]),
        ])
        var driver = SessionDriver(backend: backend)
        #expect(
            await driver.send("lsinfo old.flac")
                == "file: old.flac\nLast-Modified: 2020-09-13T12:26:40Z\nAdded: 2023-11-14T22:13:20Z\nTitle: Old\nOK\n")
        #expect(
            await driver.send("find \"(added-since '2025-01-01')\"")
                == "file: new.flac\nAdded: 2027-01-15T08:00:00Z\nTitle: New\nOK\n")
        #expect(await driver.send("find added-since 1700000000").components(separatedBy: "file: ").count == 3)
        #expect(
            await driver.send("find \"(!(added-since '2025-01-01T00:00:00Z'))\"").components(separatedBy: "file: ")
                .count == 3, "a song with no added time is not added since anything")
        #expect(await driver.send("find \"(added-since 'x')\"") == "ACK [2@0] {find} Malformed time stamp: x\n")
    }

    /// Ranges in `playlistmove` (MPD 0.24), with MPD's checks: no open end, `Bad range` past the end.
    @Test func playlistmoveMovesRanges() async {
        var driver = await saved()
        #expect(await driver.send("playlistmove p 3:5 0") == "OK\n")
        let moved = await driver.send("listplaylist p")
        #expect(moved.hasPrefix("file: Satie/Gymnopédie No. 1.ogg\nfile: loose.wav\nfile: Bach/Cello Suites/01"))
        #expect(await driver.send("playlistmove p 3: 0") == "ACK [2@0] {playlistmove} Open-ended range not supported\n")
        #expect(await driver.send("playlistmove p 4:9 0") == "ACK [2@0] {playlistmove} Bad range\n")
        #expect(await driver.send("playlistmove p 0:2 4") == "ACK [2@0] {playlistmove} Bad range\n")
        #expect(await driver.send("playlistmove p 2:2 0\nplaylistmove p 1 1") == "OK\nOK\n", "nothing to move")
        #expect(await driver.send("listplaylist p") == moved)
        #expect(
            await driver.send("listplaylist p 1:3") == "file: loose.wav\nfile: Bach/Cello Suites/01 Prelude.flac\nOK\n")
    }

    @Test func stickerIncAndDec() async {
        var driver = SessionDriver()
        #expect(await driver.send("sticker inc song loose.wav plays 2\nsticker get song loose.wav plays")
            == "OK\nsticker: plays=2\nOK\n")
        #expect(await driver.send("sticker inc song loose.wav plays 5\nsticker dec song loose.wav plays 3")
            == "OK\nOK\n")
        #expect(await driver.send("sticker get song loose.wav plays") == "sticker: plays=4\nOK\n")
        // As MPD's SQL: `dec` of a missing sticker creates it with the value given.
        #expect(await driver.send("sticker dec song loose.wav skips 1\nsticker get song loose.wav skips")
            == "OK\nsticker: skips=1\nOK\n")
        #expect(await driver.send("sticker inc song loose.wav \"\" 1") == "ACK [2@0] {sticker} empty sticker name\n")
        #expect(
            await driver.send("sticker inc song loose.wav plays x") == "ACK [2@0] {sticker} Integer expected: x\n")
        #expect(await driver.send("sticker inc song nosuch.flac plays 1") == "ACK [50@0] {sticker} No such song\n")
        #expect(await driver.send("sticker get song loose.wav nope")
            == "ACK [50@0] {sticker} no such sticker: \"nope\"\n")
    }

    @Test func stickernamesTypesAndNamesTypes() async {
        var driver = SessionDriver()
        _ = await driver.send("sticker set song loose.wav rating 5")
        _ = await driver.send("sticker set song \"Bach/Goldberg/01 Aria.flac\" mood calm")
        _ = await driver.send("sticker set song \"Bach/Goldberg/01 Aria.flac\" rating 3")
        #expect(await driver.send("stickernames") == "name: mood\nname: rating\nOK\n")
        #expect(await driver.send("stickertypes") == "stickertype: song\nOK\n")
        let namesTypes = "name: mood\ntype: song\nname: rating\ntype: song\nOK\n"
        #expect(await driver.send("stickernamestypes") == namesTypes)
        #expect(await driver.send("stickernamestypes song") == namesTypes)
        #expect(await driver.send("stickernamestypes playlist\nstickernamestypes Album") == "OK\nOK\n")
        #expect(
            await driver.send("stickernamestypes bogus") == "ACK [2@0] {stickernamestypes} no such tag \"bogus\"\n")
        #expect(
            await driver.send("sticker list playlist p") == "ACK [2@0] {sticker} unknown sticker domain \"playlist\"\n")
    }

    @Test func stickerFindOperatorsSortAndWindow() async {
        var driver = SessionDriver()
        let values = ["loose.wav": "10", "Bach/Goldberg/01 Aria.flac": "9", "Satie/Gymnopédie No. 1.ogg": "Calm 2"]
        for (uri, value) in values.sorted(by: { $0.key < $1.key }) {
            _ = await driver.send("sticker set song \"\(uri)\" x \"\(value)\"")
        }
        func files(_ command: String) async -> [String] {
            await driver.send(command).split(separator: "\n").filter { $0.hasPrefix("file: ") }
                .map { String($0.dropFirst(6)) }
        }
        #expect(await files("sticker find song \"\" x < 5") == ["loose.wav"], "strings: \"10\" < \"5\"")
        #expect(
            await files("sticker find song \"\" x lt 5") == ["Satie/Gymnopédie No. 1.ogg"], "CAST: \"Calm 2\" is 0")
        #expect(await files("sticker find song \"\" x gt 9") == ["loose.wav"])
        #expect(await files("sticker find song \"\" x eq 9") == ["Bach/Goldberg/01 Aria.flac"])
        #expect(await files("sticker find song \"\" x contains ALM") == ["Satie/Gymnopédie No. 1.ogg"])
        #expect(await files("sticker find song \"\" x starts_with calm") == ["Satie/Gymnopédie No. 1.ogg"])
        #expect(await files("sticker find song \"\" x sort value_int")
            == ["Satie/Gymnopédie No. 1.ogg", "Bach/Goldberg/01 Aria.flac", "loose.wav"])
        #expect(
            await files("sticker find song \"\" x sort -value window 0:2")
                == ["Satie/Gymnopédie No. 1.ogg", "Bach/Goldberg/01 Aria.flac"],
            "strings: \"Calm 2\" > \"9\" > \"10\"")
        #expect(await files("sticker find song \"\" x gt 0 sort -uri window 1:") == ["Bach/Goldberg/01 Aria.flac"])
        #expect(await driver.send("sticker find song \"\" x sort size")
            == "ACK [2@0] {sticker} Unknown sort tag \"size\"\n")
        #expect(await driver.send("sticker find song \"\" x ~ 1") == "ACK [2@0] {sticker} bad operator \"~\"\n")
    }

    /// `consume oneshot` and 0.24's wording for a mode that is none of `0`, `1`, `oneshot` (`single` too).
    @Test func consumeModes() async {
        var driver = SessionDriver()
        #expect(await driver.send("consume oneshot\nstatus").contains("\nconsume: oneshot\n"))
        #expect(await driver.send("consume 1\nstatus").contains("\nconsume: 1\n"))
        #expect(
            await driver.send("consume 2")
                == "ACK [2@0] {consume} Unrecognized consume mode, expected 0, 1, or oneshot\n")
        #expect(
            await driver.send("single on")
                == "ACK [2@0] {single} Unrecognized single mode, expected 0, 1, or oneshot\n")
    }

    /// `playlistfind`/`playlistsearch` with MPD 0.24's `sort` (stable) and `window`.
    @Test func playlistfindSortsAndWindows() async {
        var driver = SessionDriver()
        _ = await driver.send("add /")
        func files(_ command: String) async -> [String] {
            await driver.send(command).split(separator: "\n").filter { $0.hasPrefix("file: ") }
                .map { String($0.dropFirst(6)) }
        }
        let (prelude, allemande, aria) = (
            "Bach/Cello Suites/01 Prelude.flac", "Bach/Cello Suites/02 Allemande.flac", "Bach/Goldberg/01 Aria.flac"
        )
        #expect(await files("playlistsearch artist bach sort -Track") == [allemande, prelude, aria])
        #expect(await files("playlistsearch artist bach sort Title") == [allemande, aria, prelude])
        #expect(await files("playlistfind \"(Album == 'Cello Suites')\" window 1:2") == [allemande])
        #expect(await files("playlistsearch artist bach sort -Title window 1:") == [aria, allemande])
        let positions = await driver.send("playlistsearch artist bach sort -Track window 0:1")
        #expect(positions.hasSuffix("Pos: 1\nId: 2\nOK\n"), "\(positions)")
        #expect(await driver.send("playlistfind artist \"J. S. Bach\" window 5:") == "OK\n", "the queue's length")
        #expect(
            await driver.send("playlistfind artist \"J. S. Bach\" window 6:")
                == "ACK [2@0] {playlistfind} Bad song index\n")
        #expect(
            await driver.send("playlistsearch artist bach sort Title window 4:")
                == "ACK [2@0] {playlistsearch} Bad song index\n", "sorted: the matches' count")
        #expect(await driver.send("playlistfind artist x sort Bogus") == "ACK [2@0] {playlistfind} Unknown sort tag\n")
    }

    /// MPD 0.24 consumes only the idle flags a client subscribed to; 0.23 (and Fermata before) dropped the others.
    @Test func idleKeepsUnsubscribedChangesPending() async {
        var driver = SessionDriver()
        #expect(await driver.send("idle player") == "")
        #expect(driver.notify([.mixer, .player]) == "changed: player\nOK\n")
        #expect(await driver.send("idle mixer") == "changed: mixer\nOK\n")
        #expect(await driver.send("idle mixer player") == "")
        #expect(await driver.send("noidle") == "OK\n")
    }

    @Test func saveModes() async {
        var driver = await saved()
        #expect(await driver.send("save p") == "ACK [56@0] {save} Playlist already exists\n")
        #expect(await driver.send("save p append\nplaylistlength p") == "OK\nsongs: 10\nplaytime: 1802\nOK\n")
        #expect(await driver.send("save p replace\nplaylistlength p") == "OK\nsongs: 5\nplaytime: 901\nOK\n")
        // MPD's spl_save_queue: only `create` makes a new playlist.
        #expect(await driver.send("save q append") == "ACK [50@0] {save} No such playlist\n")
        #expect(await driver.send("save q replace") == "ACK [50@0] {save} No such playlist\n")
        #expect(await driver.send("listplaylists") == "playlist: p\nLast-Modified: 2023-11-14T22:15:00Z\nOK\n")
        #expect(
            await driver.send("save p overwrite")
                == "ACK [2@0] {save} Unrecognized save mode, expected one of 'create', 'append', 'replace'\n")
    }
}
