import Daemon
import Foundation
import Testing
import TestSupport

/// Stored playlists edited by hand: a file written on Windows (CRLF) was read as one entry, and lines outside the
/// music directory were loaded and played (a NUL went out in `listplaylist`).
@Suite struct PlaylistStoreTests {
    @Test func crlfLinesAreEntriesAndLinesOutsideTheMusicAreSkipped() throws {
        let dir = try TemporaryDirectory()
        let store = PlaylistStore(directory: dir.path)
        try store.write("ok", ["A/one.flac"])
        let text = "#EXTM3U\r\nA/one.flac\r\nB/two.wav\r\n/etc/passwd\r\n../outside.flac\r\nA/../../up.flac\r\nC/nul\u{0}.flac\r\n"
            + "C/three.ogg\n  D/spaced.flac  \r\n\r\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: dir.file("ok.m3u")))
        #expect(try store.read("ok") == ["A/one.flac", "B/two.wav", "C/three.ogg", "D/spaced.flac"])
    }
}
