/// A change to one stored playlist. Every successful edit publishes `.storedPlaylist`.
///
/// A plain value; names have passed `StoredPlaylistName.validate`, URIs `URIValidator`.
public enum StoredPlaylistEdit: Sendable, Hashable {
    /// `save NAME [MODE]`: store the queue.
    case saveQueue(SaveMode)
    /// `playlistadd NAME URI [POS]`: add a song (or a directory's songs), appending when `position` is nil.
    case add(uri: String, at: Int?)
    /// `playlistclear`: make it empty (created if missing, as MPD does).
    case clear
    /// `playlistdelete NAME POS|START:END`.
    case delete(PositionRange)
    /// `playlistmove NAME FROM TO`.
    case move(from: PositionRange, to: Int)
    /// `rename NAME NEW`: `EXIST` if the new name is taken.
    case rename(to: String)
    /// `rm NAME`.
    case remove

    /// How `save` treats an existing playlist (MPD 0.24's `create`/`append`/`replace`; `create` is the default and
    /// fails with `EXIST` when the playlist exists).
    public enum SaveMode: String, Sendable, Hashable, CaseIterable {
        case create
        case append
        case replace
    }
}

/// Stored playlist name rules: not empty, no `/`, no line breaks, not starting with `.` (MPD's `spl_valid_name`).
public enum StoredPlaylistName {
    /// Refuses what cannot be a file name of its own in the playlist directory: empty, hidden (`.`), `/` (another
    /// directory), NUL (it would cut the file name short: `a\0b` used to write `a`), line breaks.
    public static func validate(_ name: String) throws(MPDError) {
        guard !name.isEmpty, !name.hasPrefix("."),
              !name.contains(where: { $0 == "/" || $0 == "\0" || $0.isNewline }) else {
            throw MPDError(.argument, "Bad playlist name")
        }
    }
}

/// A `sticker` sub-command. `type` is MPD's object type; Fermata's backend supports `song` and may refuse others.
public enum StickerOperation: Sendable, Hashable {
    case get(type: String, uri: String, name: String)
    case set(type: String, uri: String, name: String, value: String)
    /// Deletes one sticker, or all of the object's stickers when `name` is nil.
    case delete(type: String, uri: String, name: String?)
    case list(type: String, uri: String)
    /// Objects at or under `uri` having sticker `name`, optionally compared with a value.
    case find(type: String, uri: String, name: String, comparison: StickerComparison?)
}

/// `sticker find … NAME = VALUE` (also `<`, `>`; MPD compares as strings, or as integers for `eq`/`lt`/`gt` in 0.24).
public struct StickerComparison: Sendable, Hashable {
    public enum Operator: String, Sendable, Hashable {
        case equal = "="
        case less = "<"
        case greater = ">"
    }

    public var op: Operator
    public var value: String

    public init(_ op: Operator, _ value: String) {
        self.op = op
        self.value = value
    }
}

/// One sticker in an answer; `uri` is set for `find` results.
public struct StickerMatch: Sendable, Hashable {
    public var uri: String?
    public var name: String
    public var value: String

    public init(uri: String? = nil, name: String, value: String) {
        self.uri = uri
        self.name = name
        self.value = value
    }
}

/// A request for a slice of a song's cover picture: `albumart` (a `cover.*` file in the song's directory) or
/// `readpicture` (a picture embedded in the song's tags).
public struct CoverArtRequest: Sendable, Hashable {
    public enum Source: Sendable, Hashable {
        case directoryFile
        case embedded
    }

    public var uri: String
    public var source: Source
    public var offset: Int
    /// The most bytes to return (the connection's `binarylimit`).
    public var maxLength: Int

    public init(uri: String, source: Source, offset: Int, maxLength: Int) {
        self.uri = uri
        self.source = source
        self.offset = offset
        self.maxLength = maxLength
    }
}

/// A slice of a picture: the whole size, the MIME type if known, and at most `maxLength` bytes from `offset`.
public struct CoverArtChunk: Sendable, Hashable {
    public var totalSize: Int
    public var mimeType: String?
    public var bytes: [UInt8]

    public init(totalSize: Int, mimeType: String? = nil, bytes: [UInt8]) {
        self.totalSize = totalSize
        self.mimeType = mimeType
        self.bytes = bytes
    }
}
