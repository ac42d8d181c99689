import MPDProtocol

/// A small fixed library for protocol tests: two artists, three albums, a nested directory, non-ASCII names.
public enum SampleLibrary {
    public static let songs: [SongInfo] = [
        song("Bach/Cello Suites/01 Prelude.flac", "J. S. Bach", "Cello Suites", "Prelude", track: "1", 150.5, 2_000),
        song(
            "Bach/Cello Suites/02 Allemande.flac", "J. S. Bach", "Cello Suites", "Allemande", track: "2", 240.25,
            2_001),
        song("Bach/Goldberg/01 Aria.flac", "J. S. Bach", "Goldberg Variations", "Aria", track: "1", 300, 2_002),
        song(
            "Satie/Gymnopédie No. 1.ogg", "Erik Satie", "Gymnopédies", "Gymnopédie No. 1", track: "1", 200, 2_003,
            format: "48000:f:2"),
        song("loose.wav", "Unknown", "Singles", "Loose", track: "1", 10, 2_004, format: "44100:16:1"),
    ]

    static func song(
        _ uri: String, _ artist: String, _ album: String, _ title: String, track: String, _ duration: Double,
        _ modified: Int64, format: String = "44100:16:2"
    ) -> SongInfo {
        SongInfo(
            uri: uri,
            tags: [
                TagValue(.title, title), TagValue(.artist, artist), TagValue(.album, album), TagValue(.track, track),
                TagValue(.albumArtist, artist),
            ],
            duration: duration, format: format, lastModified: 1_700_000_000 + modified
        )
    }
}
