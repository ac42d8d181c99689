import Daemon
import FermataCore
import Foundation
import Testing
import TestSupport

/// Stored playlists edited by hand: a file written on Windows (CRLF) was read as one entry, and lines outside the
/// music directory were loaded and played (a NUL went out in `listplaylist`).
@Suite struct PlaylistStoreTests {
    @Test func crlfLinesAreEntriesAndLinesOutsideTheMusicAreSkipped() throws {
        let dir = try TemporaryDirectory()
        let store = PlaylistStore(directory: dir.path)
        try store.write("ok", [PlaylistLine(uri: "A/one.flac")])
        let text = "#EXTM3U\r\nA/one.flac\r\nB/two.wav\r\n/etc/passwd\r\n../outside.flac\r\nA/../../up.flac\r\nC/nul\u{0}.flac\r\n"
            + "C/three.ogg\n  D/spaced.flac  \r\n\r\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: dir.file("ok.m3u")))
        #expect(try store.read("ok").map(\.uri) == ["A/one.flac", "B/two.wav", "C/three.ogg", "D/spaced.flac"])
        #expect(try store.read("ok").allSatisfy { $0.span == nil })
    }

    /// A saved queue of radio stations reads back (stream URLs were skipped as paths outside the music directory);
    /// a line that only looks like one is still skipped.
    @Test func streamURLsAreKept() throws {
        let dir = try TemporaryDirectory()
        let store = PlaylistStore(directory: dir.path)
        let lines = [PlaylistLine(uri: "http://radio.example:8000/live.mp3?x=1"), PlaylistLine(uri: "A/one.flac"),
                     PlaylistLine(uri: "HTTPS://radio.example/a%20b")]
        try store.write("radio", lines)
        #expect(try store.read("radio") == lines)
        try Data("http://\nftp://radio.example/x\nhttp://radio.example/a b\nfile:///etc/passwd\n".utf8)
            .write(to: URL(fileURLWithPath: dir.file("bad.m3u")))
        #expect(try store.read("bad").isEmpty)
    }

    /// Ranges and sections survive a save and a load, and the file still reads as plain URIs to other players.
    @Test func spansRoundTripAsCommentsBeforeTheirURIs() throws {
        let dir = try TemporaryDirectory()
        let store = PlaylistStore(directory: dir.path)
        let lines = [
            PlaylistLine(uri: "A/one.flac", span: PlaySpan(startMilliseconds: 12_500, endMilliseconds: 30_000, passes: 4,
                                                           tempoPercent: 80, section: "the solo")),
            PlaylistLine(uri: "A/one.flac"),
            PlaylistLine(uri: "B/two.flac", span: PlaySpan(startMilliseconds: 61_005)),
            PlaylistLine(uri: "B/two.flac", span: PlaySpan(startMilliseconds: 0, endMilliseconds: 7)),
        ]
        try store.write("set", lines)
        #expect(try store.read("set") == lines)
        let text = try String(contentsOfFile: dir.file("set.m3u"), encoding: .utf8)
        #expect(text == """
            #FERMATA-SPAN:12.500-30.000 passes=4 tempo=80 section=the solo
            A/one.flac
            A/one.flac
            #FERMATA-SPAN:61.005-
            B/two.flac
            #FERMATA-SPAN:0.000-0.007
            B/two.flac

            """)
        #expect(text.split(separator: "\n").filter { !$0.hasPrefix("#") } == ["A/one.flac", "A/one.flac", "B/two.flac",
                                                                             "B/two.flac"])
    }

    /// A hand-edited part that is not one (reversed ends, a tempo out of range, a stray word, 25 hours) plays the
    /// whole file; a part applies to the next URI only.
    @Test func badPartsPlayTheWholeFile() throws {
        let dir = try TemporaryDirectory()
        let store = PlaylistStore(directory: dir.path)
        let text = """
            #FERMATA-SPAN:30-10
            a.flac
            #FERMATA-SPAN:1-2 tempo=200
            b.flac
            #FERMATA-SPAN:1-2 loud=yes
            c.flac
            #FERMATA-SPAN:90000-
            d.flac
            #FERMATA-SPAN:1.5-2.25 passes=2
            e.flac
            f.flac
            """
        try Data(text.utf8).write(to: URL(fileURLWithPath: dir.file("bad.m3u")))
        let read = try store.read("bad")
        #expect(read.map(\.uri) == ["a.flac", "b.flac", "c.flac", "d.flac", "e.flac", "f.flac"])
        #expect(read.map(\.span) == [nil, nil, nil, nil,
                                      PlaySpan(startMilliseconds: 1_500, endMilliseconds: 2_250, passes: 2), nil])
    }

    /// The longest name the protocol and the web remote take (`StoredPlaylistName.maxBytes`, 247 UTF-8 bytes) is a
    /// file name with the store's suffixes, its temporary `.m3u.tmp` included; one byte more is not.
    @Test func theLongestNameIsAFileName() throws {
        let dir = try TemporaryDirectory()
        let store = PlaylistStore(directory: dir.path)
        let longest = String(repeating: "é", count: 123) + "a"
        #expect(longest.utf8.count == 247)
        try store.write(longest, [PlaylistLine(uri: "A/one.flac")])
        #expect(try store.read(longest).map(\.uri) == ["A/one.flac"])
        #expect(try store.list().map(\.name) == [longest])
        try store.remove(longest)
        #expect(throws: (any Error).self) { try store.write(longest + "b", [PlaylistLine(uri: "A/one.flac")]) }
    }
}
