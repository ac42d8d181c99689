/// A song tag MPD knows, with MPD's spelling (`rawValue`) and order (the order `tagtypes` lists and songs print them).
///
/// A plain value; usable anywhere.
public enum TagType: String, Sendable, Hashable, CaseIterable, Comparable {
    case artist = "Artist"
    case artistSort = "ArtistSort"
    case album = "Album"
    case albumSort = "AlbumSort"
    case albumArtist = "AlbumArtist"
    case albumArtistSort = "AlbumArtistSort"
    case title = "Title"
    case track = "Track"
    case name = "Name"
    case genre = "Genre"
    case date = "Date"
    case originalDate = "OriginalDate"
    case composer = "Composer"
    case composerSort = "ComposerSort"
    case performer = "Performer"
    case conductor = "Conductor"
    case work = "Work"
    case ensemble = "Ensemble"
    case movement = "Movement"
    case movementNumber = "MovementNumber"
    case location = "Location"
    case grouping = "Grouping"
    case comment = "Comment"
    case disc = "Disc"
    case label = "Label"
    case musicBrainzArtistID = "MUSICBRAINZ_ARTISTID"
    case musicBrainzAlbumID = "MUSICBRAINZ_ALBUMID"
    case musicBrainzAlbumArtistID = "MUSICBRAINZ_ALBUMARTISTID"
    case musicBrainzTrackID = "MUSICBRAINZ_TRACKID"
    case musicBrainzReleaseTrackID = "MUSICBRAINZ_RELEASETRACKID"
    case musicBrainzWorkID = "MUSICBRAINZ_WORKID"

    /// Parses a tag name case-insensitively, as MPD does (`artist`, `ARTIST` and `Artist` are the same tag).
    public init?(name: String) {
        let lowered = name.lowercased()
        guard let match = Self.allCases.first(where: { $0.rawValue.lowercased() == lowered }) else { return nil }
        self = match
    }

    /// The position in MPD's tag order (a table: sorting a song's tags used to search `allCases` per comparison).
    public var order: Int { Self.orders[self]! }

    private static let orders = Dictionary(uniqueKeysWithValues: allCases.enumerated().map { ($0.element, $0.offset) })

    public static func < (lhs: TagType, rhs: TagType) -> Bool { lhs.order < rhs.order }
}

/// One tag value of a song; a song may carry several values of one type (two artists).
public struct TagValue: Sendable, Hashable {
    public var type: TagType
    public var value: String

    public init(_ type: TagType, _ value: String) {
        self.type = type
        self.value = value
    }
}
