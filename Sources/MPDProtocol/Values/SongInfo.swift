import FermataCore

/// One song as the protocol prints it: from the database, a stored playlist or the queue (then with position and id).
///
/// A plain value built by the `MPDBackend`; usable anywhere.
public struct SongInfo: Sendable, Hashable {
    /// The path relative to the music directory, `/`-separated, never starting with `/`.
    public var uri: String
    /// Tags in the order they should print (MPD prints in tag-type order; see `orderedTags`).
    public var tags: [TagValue]
    /// Length in seconds, when known.
    public var duration: Double?
    /// The decoded format as `rate:bits:channels` (e.g. `44100:16:2`, `48000:f:2`), when known.
    public var format: String?
    /// The file's modification time, Unix seconds (UTC).
    public var lastModified: Int64?
    /// When the song entered the database, Unix seconds (MPD 0.24's `Added`).
    public var added: Int64?
    /// Position in the queue (0-based) for queue songs.
    public var queuePosition: Int?
    /// The queue entry id for queue songs (MPD's `Id`).
    public var queueID: EntryID?
    /// The queue entry's priority (MPD's `Prio`, printed when not 0).
    public var priority: UInt8 = 0
    /// The part of the file a queue entry or a stored playlist's line plays (MPD's `Range:`; Fermata's passes, tempo
    /// and section name), nil: all of it.
    public var span: PlaySpan?

    public init(
        uri: String, tags: [TagValue] = [], duration: Double? = nil, format: String? = nil,
        lastModified: Int64? = nil, queuePosition: Int? = nil, queueID: EntryID? = nil, added: Int64? = nil
    ) {
        self.uri = uri
        self.tags = tags
        self.duration = duration
        self.format = format
        self.lastModified = lastModified
        self.added = added
        self.queuePosition = queuePosition
        self.queueID = queueID
    }

    /// All values of `type`, in order.
    public func values(_ type: TagType) -> [String] { tags.filter { $0.type == type }.map(\.value) }

    /// The first value of `type`.
    public func first(_ type: TagType) -> String? { tags.first { $0.type == type }?.value }

    /// Tags sorted by MPD's tag order, values of one type kept in their given order.
    public var orderedTags: [TagValue] {
        // Usually already in order (the library lists them so): checked in one pass instead of sorted per song.
        if zip(tags, tags.dropFirst()).allSatisfy({ $0.type.order <= $1.type.order }) { return tags }
        return tags.enumerated().sorted { ($0.element.type, $0.offset) < ($1.element.type, $1.offset) }.map(\.element)
    }
}
