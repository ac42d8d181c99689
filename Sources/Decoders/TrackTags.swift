import FermataCore

/// MusicBrainz identifiers from a file's tags (Picard writes them): the recording, the release, the artist, the
/// release's artist and the release track, as MPD's `MUSICBRAINZ_*` tags. Each is the first value when several are.
public struct MusicBrainzIDs: Sendable, Hashable {
    public var track: String?
    public var album: String?
    public var artist: String?
    public var albumArtist: String?
    public var releaseTrack: String?

    public init() {}
}

/// The metadata of one file, read without decoding its audio. Strings are valid UTF-8 (invalid bytes replaced).
public struct TrackTags: Sendable, Hashable {
    public var title: String?
    public var artist: String?
    public var albumArtist: String?
    public var album: String?
    public var trackNumber: Int?
    public var discNumber: Int?
    public var date: String?
    public var genre: String?
    public var composer: String?
    public var bpm: Double?
    public var replayGain = ReplayGainInfo()
    public var musicBrainz = MusicBrainzIDs()
    /// Length in seconds when known.
    public var duration: Double?
    /// "flac", "vorbis", "wav", "mp3", "aac", "alac" or "opus".
    public var codec: String = ""
    public var sampleRate: Int = 0
    public var channels: Int = 0
    public var bitsPerSample: Int = 0
    /// FLAC's STREAMINFO MD5 of the decoded audio as 32 hex digits, when the file has one (all zero means absent).
    public var audioMD5: String?
    /// Size in bytes of the first embedded picture, when present (cover art is noted, never kept in memory).
    public var embeddedPictureBytes: Int?
    /// Where the first embedded picture sits (MP3, MP4, Opus), for its hash and for `readpicture`.
    public var pictureLocation: PictureLocation?

    public init() {}
}
