/// A track tag the searches and listings understand, with its MPD name and its column.
public enum TrackTag: String, Sendable, Hashable, CaseIterable {
    case artist
    case albumArtist
    case album
    case title
    case track
    case disc
    case date
    case genre
    case composer

    /// The name MPD uses in commands and responses ("AlbumArtist", "Track"…).
    public var mpdName: String {
        switch self {
        case .artist: "Artist"
        case .albumArtist: "AlbumArtist"
        case .album: "Album"
        case .title: "Title"
        case .track: "Track"
        case .disc: "Disc"
        case .date: "Date"
        case .genre: "Genre"
        case .composer: "Composer"
        }
    }

    /// The tag MPD calls `name` (any case), or nil.
    public init?(mpdName name: String) {
        guard let tag = Self.allCases.first(where: { $0.mpdName.lowercased() == name.lowercased() }) else {
            return nil
        }
        self = tag
    }

    /// The column holding the tag, as text.
    var column: String {
        switch self {
        case .artist: "artist"
        case .albumArtist: "album_artist"
        case .album: "album"
        case .title: "title"
        case .track: "CAST(track_number AS TEXT)"
        case .disc: "CAST(disc_number AS TEXT)"
        case .date: "date"
        case .genre: "genre"
        case .composer: "composer"
        }
    }
}

/// One condition of a `find` (exact, case-sensitive) or `search` (case-insensitive substring), as MPD has them.
public struct TagFilter: Sendable, Hashable {
    /// What the condition looks at.
    public enum Field: Sendable, Hashable {
        case tag(TrackTag)
        /// Any tag (MPD's `any`): for `search` also the path.
        case any
        /// The path relative to the music directory (MPD's `file`).
        case file
        /// Tracks at or below a directory (MPD's `base`); exact in both `find` and `search`.
        case base
    }

    public var field: Field
    public var value: String

    public init(_ field: Field, _ value: String) {
        self.field = field
        self.value = value
    }

    /// Shorthand for a tag condition.
    public static func tag(_ tag: TrackTag, _ value: String) -> TagFilter { TagFilter(.tag(tag), value) }
}
