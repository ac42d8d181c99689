/// A change to one stored playlist. Every successful edit publishes `.storedPlaylist`.
///
/// A plain value; names have passed `StoredPlaylistName.validate`, URIs `URIValidator`.
public enum StoredPlaylistEdit: Sendable, Hashable {
    /// `save NAME [MODE]`: store the queue.
    case saveQueue(SaveMode)
    /// `playlistadd NAME URI [POS]`: add a song (or a directory's songs), appending when `position` is nil.
    case add(uri: String, at: Int?)
    /// `playlistclear`: make it empty (`No such playlist` when missing, as MPD 0.23).
    case clear
    /// `playlistdelete NAME POS|START:END`.
    case delete(PositionRange)
    /// `playlistmove NAME FROM[:END] TO`: `from` has an end; a range past the list's end, or a `to` that leaves no
    /// room for it, is MPD's `Bad range`.
    case move(from: PositionRange, to: Int)
    /// `rename NAME NEW`: `EXIST` if the new name is taken.
    case rename(to: String)
    /// `rm NAME`.
    case remove

    /// How `save` treats an existing playlist (MPD 0.24's `create`/`append`/`replace`; `create` is the default and
    /// fails with `EXIST` when the playlist exists, the others with `No such playlist` when it does not).
    public enum SaveMode: String, Sendable, Hashable, CaseIterable {
        case create
        case append
        case replace
    }
}

/// Stored playlist name rules: not empty, no `/`, no line breaks, not starting with `.` (MPD's `spl_valid_name`), and
/// short enough to be a file name with the store's suffixes.
public enum StoredPlaylistName {
    /// The longest name, in UTF-8 bytes: a file name holds 255 bytes (`NAME_MAX` on Linux's file systems), and the
    /// store writes `NAME.m3u.tmp` before renaming it to `NAME.m3u`. A longer name was refused by the file system
    /// only when written ("File name too long", a system error MPD clients and the web page could not explain).
    public static let maxBytes = 255 - ".m3u.tmp".utf8.count

    /// Refuses what cannot be a file name of its own in the playlist directory: empty, hidden (`.`), `/` (another
    /// directory), NUL (it would cut the file name short: `a\0b` used to write `a`), line breaks, and more than
    /// `maxBytes` bytes.
    public static func validate(_ name: String) throws(MPDError) {
        guard !name.isEmpty, !name.hasPrefix("."),
              !name.contains(where: { $0 == "/" || $0 == "\0" || $0.isNewline }) else {
            throw MPDError(.argument, "Bad playlist name")
        }
        guard name.utf8.count <= maxBytes else {
            throw MPDError(.argument, "Playlist name too long (at most \(maxBytes) bytes)")
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
    /// Objects at or under `uri` having sticker `name`, optionally compared with a value (`StickerComparison.holds`).
    case find(type: String, uri: String, name: String, comparison: StickerComparison?)
    /// `sticker inc`/`dec` (MPD 0.24): adds `delta` to the sticker's value read as an integer
    /// (`StickerComparison.integer`), or creates it with `ifMissing`. Answers nothing.
    case add(type: String, uri: String, name: String, delta: Int, ifMissing: Int)
    /// `stickernames` (MPD 0.24): one match per sticker name in use, sorted, with `name` set only.
    case names
}

/// `sticker find … NAME OP VALUE`, with MPD 0.24's operators: `=`, `<`, `>` compare strings, `eq`, `lt`, `gt`
/// integers (SQLite's `CAST(value AS INT)`), `contains` and `starts_with` match ASCII case-insensitively (SQLite's
/// `LIKE`).
public struct StickerComparison: Sendable, Hashable {
    public enum Operator: String, Sendable, Hashable {
        case equal = "="
        case less = "<"
        case greater = ">"
        case equalInt = "eq"
        case lessInt = "lt"
        case greaterInt = "gt"
        case contains
        case startsWith = "starts_with"
    }

    public var op: Operator
    public var value: String

    public init(_ op: Operator, _ value: String) {
        self.op = op
        self.value = value
    }

    /// Whether a sticker's `stored` value passes the comparison, as MPD's SQL decides it.
    public func holds(for stored: String) -> Bool {
        switch op {
        case .equal: stored == value
        case .less: stored < value
        case .greater: stored > value
        case .equalInt: Self.integer(stored) == Self.integer(value)
        case .lessInt: Self.integer(stored) < Self.integer(value)
        case .greaterInt: Self.integer(stored) > Self.integer(value)
        case .contains: Self.asciiLowered(stored).contains(Self.asciiLowered(value))
        case .startsWith: Self.asciiLowered(stored).hasPrefix(Self.asciiLowered(value))
        }
    }

    /// A text as SQLite's `CAST(text AS INT)` reads it: the leading integer (after spaces, with a sign), else 0;
    /// clamped to 64 bits.
    public static func integer(_ text: String) -> Int64 {
        var bytes = Substring(text).utf8.drop { $0 == UInt8(ascii: " ") }[...]
        var negative = false
        if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        var result: Int64 = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { break }
            let (times, overflow) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            if overflow || overflow2 { return negative ? .min : .max }
            result = sum
        }
        return negative ? -result : result
    }

    private static func asciiLowered(_ text: String) -> String {
        String(decoding: text.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
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
