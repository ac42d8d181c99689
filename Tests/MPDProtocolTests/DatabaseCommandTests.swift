import MPDProtocol
import MPDTestSupport
import Testing

@Suite struct DatabaseCommandTests {
    func files(_ text: String) -> [String] {
        text.split(separator: "\n").filter { $0.hasPrefix("file: ") }.map { String($0.dropFirst(6)) }
    }

    @Test func findIsExactSearchIsFoldedSubstring() async {
        var driver = SessionDriver()
        #expect(await files(driver.send("find album \"Cello Suites\"")).count == 2)
        #expect(await files(driver.send("find album \"cello suites\"")).isEmpty)
        #expect(await files(driver.send("search album cello")).count == 2)
        #expect(await files(driver.send("search any SATIE")) == ["Satie/Gymnopédie No. 1.ogg"])
        #expect(
            await files(driver.send("find \"((artist == 'J. S. Bach') AND (!(album == 'Goldberg Variations')))\""))
                == ["Bach/Cello Suites/01 Prelude.flac", "Bach/Cello Suites/02 Allemande.flac"])
        #expect(await driver.send("find bogus x") == "ACK [2@0] {find} Unknown filter type\n")
        #expect(await driver.send("find \"(title =~ '(')\"") == "ACK [2@0] {find} Invalid regex: (\n")
    }

    @Test func sortAndWindow() async {
        var driver = SessionDriver()
        #expect(
            await files(driver.send("find artist \"J. S. Bach\" sort -Title window 0:2"))
                == ["Bach/Cello Suites/01 Prelude.flac", "Bach/Goldberg/01 Aria.flac"])
        #expect(
            await files(driver.send("search \"(base 'Bach')\" sort Title")).first
                == "Bach/Cello Suites/02 Allemande.flac")
        #expect(await driver.send("find artist x sort Bogus") == "ACK [2@0] {find} Unknown sort tag\n")
    }

    @Test func findaddAndSearchaddFillTheQueue() async {
        var driver = SessionDriver()
        #expect(await driver.send("findadd artist \"Erik Satie\"\nsearchadd album cello position 0") == "OK\nOK\n")
        #expect(
            await files(driver.send("playlistinfo")) == [
                "Bach/Cello Suites/01 Prelude.flac", "Bach/Cello Suites/02 Allemande.flac",
                "Satie/Gymnopédie No. 1.ogg",
            ])
    }

    @Test func listWithGroupsAndLegacyForm() async {
        var driver = SessionDriver()
        #expect(await driver.send("list artist") == "Artist: Erik Satie\nArtist: J. S. Bach\nArtist: Unknown\nOK\n")
        #expect(
            await driver.send("list album group albumartist") == """
                AlbumArtist: Erik Satie
                Album: Gymnopédies
                AlbumArtist: J. S. Bach
                Album: Cello Suites
                Album: Goldberg Variations
                AlbumArtist: Unknown
                Album: Singles
                OK

                """)
        #expect(
            await driver.send("list album \"J. S. Bach\"") == "Album: Cello Suites\nAlbum: Goldberg Variations\nOK\n")
        #expect(await driver.send("list title \"(album == 'Singles')\"") == "Title: Loose\nOK\n")
        #expect(await driver.send("list file base Satie") == "file: Satie/Gymnopédie No. 1.ogg\nOK\n")
        #expect(await driver.send("list artist x") == "ACK [2@0] {list} should be \"Album\" for 3 arguments\n")
        #expect(await driver.send("list bogus") == "ACK [2@0] {list} Unknown tag type: bogus\n")
        #expect(await driver.send("list album group album") == "ACK [2@0] {list} Conflicting group\n")
    }

    @Test func countTotalsAndGroups() async {
        var driver = SessionDriver()
        #expect(await driver.send("count artist \"J. S. Bach\"") == "songs: 3\nplaytime: 690\nOK\n")
        #expect(
            await driver.send("count group artist") == """
                Artist: Erik Satie
                songs: 1
                playtime: 200
                Artist: J. S. Bach
                songs: 3
                playtime: 690
                Artist: Unknown
                songs: 1
                playtime: 10
                OK

                """)
    }

    @Test func browsing() async {
        var driver = SessionDriver()
        _ = await driver.send("save mix")
        #expect(
            await driver.send("lsinfo") == """
                directory: Bach
                Last-Modified: 2023-11-14T22:13:20Z
                directory: Satie
                Last-Modified: 2023-11-14T22:13:20Z
                file: loose.wav
                Last-Modified: 2023-11-14T22:46:44Z
                Format: 44100:16:1
                Artist: Unknown
                Album: Singles
                AlbumArtist: Unknown
                Title: Loose
                Track: 1
                Time: 10
                duration: 10.000
                playlist: mix
                Last-Modified: 2023-11-14T22:15:00Z
                OK

                """)
        #expect(
            await driver.send("listall Bach") == """
                directory: Bach/Cello Suites
                file: Bach/Cello Suites/01 Prelude.flac
                file: Bach/Cello Suites/02 Allemande.flac
                directory: Bach/Goldberg
                file: Bach/Goldberg/01 Aria.flac
                OK

                """)
        #expect(await files(driver.send("listallinfo")).count == 5)
        #expect(await driver.send("lsinfo nosuch") == "ACK [50@0] {lsinfo} No such directory\n")
        #expect(
            await driver.send("listfiles Satie") == """
                file: Gymnopédie No. 1.ogg
                size: 1000
                Last-Modified: 2023-11-14T22:46:43Z
                OK

                """)
    }

    @Test func updateReturnsAJobAndNotifies() async {
        var driver = SessionDriver()
        _ = await driver.send("idle database")
        #expect(await driver.send("noidle\nupdate\nrescan Bach") == "OK\nupdating_db: 1\nOK\nupdating_db: 2\nOK\n")
        #expect(await driver.send("idle update") == "changed: update\nOK\n")
        // MPD queues an update of a path that does not exist (it may appear before the scan gets there).
        #expect(await driver.send("update nosuch/dir") == "updating_db: 3\nOK\n")
    }
}
