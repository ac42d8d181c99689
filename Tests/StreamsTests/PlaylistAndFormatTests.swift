import Testing
@testable import Streams

/// Remote playlists parsed within their bounds, and a body's format told from its bytes.
@Suite struct PlaylistAndFormatTests {
    @Test func theFourPlaylistKinds() throws {
        let m3u = "#EXTM3U\n#EXTINF:-1,Radio\nhttp://a.example/live\n\nfile:///etc/passwd\nhttps://b.example/x\n"
        #expect(try RemotePlaylist.entries(m3u, kind: .m3u) == ["http://a.example/live", "https://b.example/x"])
        let pls = "[playlist]\r\nNumberOfEntries=2\r\nFile1=http://a.example/1\r\nTitle1=x\r\nfile2 = http://b.example/2\r\n"
        #expect(try RemotePlaylist.entries(pls, kind: .pls) == ["http://a.example/1", "http://b.example/2"])
        let xspf = """
            <?xml version="1.0"?><playlist version="1" xmlns="http://xspf.org/ns/0/"><trackList>
            <track><location>http://a.example/?a=1&amp;b=2</location></track>
            <track><location>ftp://nope</location></track></trackList></playlist>
            """
        #expect(try RemotePlaylist.entries(xspf, kind: .xspf) == ["http://a.example/?a=1&b=2"])
    }

    @Test func hlsAndEmptyListsAreRefusedByName() {
        #expect(throws: StreamError.content("an HLS playlist (segmented streaming), which Fermata does not play")) {
            try RemotePlaylist.entries("#EXTM3U\n#EXT-X-TARGETDURATION:6\nseg1.ts\n", kind: .m3u)
        }
        #expect(throws: StreamError.self) { try RemotePlaylist.entries("#EXTM3U\n# nothing\n", kind: .m3u) }
    }

    @Test func entriesAreBounded() throws {
        let many = (0..<1000).map { "http://a.example/\($0)" }.joined(separator: "\n")
        #expect(try RemotePlaylist.entries(many, kind: .m3u).count == RemotePlaylist.maxEntries)
    }

    @Test func streamURLs() {
        #expect(StreamURL.isStream("http://radio.example:8000/live"))
        #expect(StreamURL.isStream("HTTPS://radio.example/x"))
        #expect(!StreamURL.isStream("http://"))
        #expect(!StreamURL.isStream("http://a b"))
        #expect(!StreamURL.isStream("http://a\nb"))
        #expect(!StreamURL.isStream("ftp://a/b"))
        #expect(!StreamURL.isStream("http://" + String(repeating: "a", count: 3000)))
    }

    @Test func formatsFromTheirBytes() throws {
        // MPEG-1 layer III, 128 kb/s, 44.1 kHz: 417-byte frames; two in a row.
        var mp3: [UInt8] = []
        for _ in 0..<2 { mp3 += [0xFF, 0xFB, 0x90, 0x00] + [UInt8](repeating: 0, count: 413) }
        #expect(StreamFormat.sniff(Array(repeating: 0x55, count: 100) + mp3, contentType: "audio/mpeg") == .mp3)
        #expect(StreamFormat.sniff([0xFF, 0xF1, 0x50, 0x80, 0x2E, 0x7F, 0xFC], contentType: nil) == .aac)
        #expect(StreamFormat.sniff(Array("OggS".utf8) + [UInt8](repeating: 0, count: 24) + Array("\u{1}vorbis".utf8),
                                   contentType: "application/ogg") == .oggVorbis)
        #expect(StreamFormat.sniff(Array("OggS".utf8) + [UInt8](repeating: 0, count: 24) + Array("OpusHead".utf8),
                                   contentType: nil) == .oggOpus)
        #expect(StreamFormat.sniff(Array("fLaC".utf8), contentType: nil) == .flac)
        #expect(StreamFormat.sniff(Array("[playlist]\nFile1=http://x/\n".utf8), contentType: "text/plain") == .playlist)
        #expect(StreamFormat.sniff(Array("#EXTM3U\n".utf8), contentType: "application/octet-stream") == .playlist)
        // Zeros, an HTML page, random text: none.
        #expect(StreamFormat.sniff([UInt8](repeating: 0, count: 16384), contentType: "audio/mpeg") == nil)
        #expect(StreamFormat.sniff(Array("<html><body>Not found</body></html>".utf8), contentType: "text/html") == nil)
    }
}
