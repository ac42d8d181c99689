import MPDProtocol
import MPDTestSupport
import Testing

@Suite struct StoredPlaylistCommandTests {
    @Test func saveLoadAndEdit() async {
        var driver = SessionDriver()
        _ = await driver.send("add Bach")
        #expect(await driver.send("save practice\nsave practice") == "OK\nACK [56@0] {save} Playlist already exists\n")
        #expect(
            await driver.send("save practice append\nlistplaylist practice 0:1")
                == "OK\nfile: Bach/Cello Suites/01 Prelude.flac\nOK\n")
        #expect(await driver.send("listplaylists") == "playlist: practice\nLast-Modified: 2023-11-14T22:15:00Z\nOK\n")
        #expect(
            await driver.send("playlistclear practice\nplaylistadd practice loose.wav\nplaylistadd practice Satie 0")
                == "OK\nOK\nOK\n")
        #expect(await driver.send("listplaylist practice") == "file: Satie/Gymnopédie No. 1.ogg\nfile: loose.wav\nOK\n")
        #expect(
            await driver.send("playlistmove practice 0 1\nplaylistdelete practice 0\nlistplaylist practice")
                == "OK\nOK\nfile: Satie/Gymnopédie No. 1.ogg\nOK\n")
        #expect(await driver.send("listplaylistinfo practice").contains("Title: Gymnopédie No. 1\n"))
        #expect(await driver.send("clear\nload practice\nplaylistinfo").contains("Pos: 0\nId: 4\n"))
        #expect(await driver.send("rename practice études\nrm études\nlistplaylists") == "OK\nOK\nOK\n")
    }

    @Test func namesAndMissingPlaylists() async {
        var driver = SessionDriver()
        #expect(await driver.send("save ../evil") == "ACK [2@0] {save} Bad playlist name\n")
        #expect(await driver.send("save .hidden") == "ACK [2@0] {save} Bad playlist name\n")
        // A NUL would cut the file name short ("a\0b" used to be saved as "a").
        #expect(await driver.send("save \"a\u{0}b\"") == "ACK [2@0] {save} Bad playlist name\n")
        // A name longer than a file name holds (with `.m3u.tmp`) was a system error from the file system when saved.
        #expect(await driver.send("save " + String(repeating: "é", count: 124))
                    == "ACK [2@0] {save} Playlist name too long (at most 247 bytes)\n")
        #expect(await driver.send("rename x " + String(repeating: "a", count: 248))
                    == "ACK [2@0] {rename} Playlist name too long (at most 247 bytes)\n")
        #expect(await driver.send("listplaylists") == "OK\n")
        #expect(await driver.send("listplaylist nosuch") == "ACK [50@0] {listplaylist} No such playlist\n")
        #expect(await driver.send("load nosuch") == "ACK [50@0] {load} No such playlist\n")
        #expect(await driver.send("rm nosuch") == "ACK [50@0] {rm} No such playlist\n")
        #expect(
            await driver.send("save x bogus")
                == "ACK [2@0] {save} Unrecognized save mode, expected one of 'create', 'append', 'replace'\n")
    }
}

@Suite struct StickerAndOutputCommandTests {
    @Test func stickers() async {
        var driver = SessionDriver()
        #expect(
            await driver.send(
                "sticker set song loose.wav rating 5\nsticker set song \"Satie/Gymnopédie No. 1.ogg\" rating 3")
                == "OK\nOK\n")
        #expect(await driver.send("sticker get song loose.wav rating") == "sticker: rating=5\nOK\n")
        #expect(await driver.send("sticker list song loose.wav") == "sticker: rating=5\nOK\n")
        #expect(
            await driver.send("sticker find song \"\" rating")
                == "file: Satie/Gymnopédie No. 1.ogg\nsticker: rating=3\nfile: loose.wav\nsticker: rating=5\nOK\n")
        #expect(await driver.send("sticker find song \"\" rating > 4") == "file: loose.wav\nsticker: rating=5\nOK\n")
        #expect(
            await driver.send("sticker delete song loose.wav rating\nsticker get song loose.wav rating")
                == "OK\nACK [50@0] {sticker} no such sticker: \"rating\"\n")
        #expect(await driver.send("sticker get song loose.wav") == "ACK [2@0] {sticker} bad request\n")
        #expect(
            await driver.send("sticker get album x y") == "ACK [2@0] {sticker} unknown sticker domain \"album\"\n")
    }

    @Test func outputs() async {
        var driver = SessionDriver()
        #expect(
            await driver.send("outputs") == """
                outputid: 0
                outputname: ALSA default
                plugin: alsa
                outputenabled: 1
                attribute: dop=0
                outputid: 1
                outputname: Null
                plugin: null
                outputenabled: 0
                OK

                """)
        #expect(await driver.send("disableoutput 0\ntoggleoutput 1\nenableoutput 0") == "OK\nOK\nOK\n")
        #expect(await driver.send("outputs").components("outputenabled: 1") == 2)
        #expect(await driver.send("enableoutput 7") == "ACK [50@0] {enableoutput} No such audio output\n")
    }
}
