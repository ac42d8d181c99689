import FermataCore

/// A half-open range of positions, `start..<end`; `end == nil` means "to the end" (MPD's `START:`).
///
/// A plain value. Backends clamp nothing: a range that starts past the end is the backend's `Bad song index`.
public struct PositionRange: Sendable, Hashable, CustomStringConvertible {
    public var start: Int
    public var end: Int?

    public init(start: Int, end: Int?) {
        self.start = start
        self.end = end
    }

    /// The single position `position..<position+1`.
    public static func single(_ position: Int) -> PositionRange { PositionRange(start: position, end: position + 1) }

    /// Everything.
    public static let all = PositionRange(start: 0, end: nil)

    /// The concrete range within a list of `count` elements (end clamped to `count`).
    public func clamped(to count: Int) -> Range<Int> {
        let upper = Swift.min(end ?? count, count)
        let lower = Swift.min(start, upper)
        return lower..<upper
    }

    public var description: String { end.map { "\(start):\($0)" } ?? "\(start):" }
}

/// Which queue entries an edit or read addresses.
public enum QueueTarget: Sendable, Hashable {
    case positions(PositionRange)
    case id(EntryID)
}

/// Where new or moved queue entries go. Relative forms are MPD 0.23's `+N` / `-N` (relative to the current song).
public enum QueueInsertPosition: Sendable, Hashable {
    /// Append (no position given).
    case end
    /// Before the entry now at this absolute position (equal to the length appends).
    case absolute(Int)
    /// `+N`: N entries after the current song (`+0` = right after it).
    case afterCurrent(Int)
    /// `-N`: N entries before the current song (`-0` = right before it).
    case beforeCurrent(Int)
}

/// What to add to the queue.
public enum QueueSource: Sendable, Hashable {
    /// A song URI, or with `recursive` a directory and everything under it (`add`; `addid` takes songs only).
    case uri(String, recursive: Bool)
    /// The songs of a database query (`findadd`, `searchadd`).
    case matching(SongQuery)
    /// A stored playlist, optionally a range of it (`load`).
    case storedPlaylist(name: String, range: PositionRange?)
    /// One song, a part of it (`section_queue`: a practice section of the track).
    case part(uri: String, PlaySpan)
}

/// A change to the queue. Every edit that changes anything bumps the queue version and publishes `.playlist`.
public enum QueueEdit: Sendable, Hashable {
    /// Adds at `position`; the backend returns the new entries' ids in order.
    case add(QueueSource, at: QueueInsertPosition)
    case delete(QueueTarget)
    /// Moves the addressed entries (kept in order) so the first lands at `to`, counted after removal as MPD does.
    case move(QueueTarget, to: QueueInsertPosition)
    /// Exchanges two single entries (MPD `swap` by positions, `swapid` by ids); the rest stays where it is.
    case swap(QueueTarget, QueueTarget)
    case clear
    /// Shuffles the whole queue or a range of it.
    case shuffle(PositionRange?)
    /// Sets the priority (0–255) of the addressed entries (`prio` by ranges, `prioid` by ids), all or none: a bad
    /// range or an unknown id changes nothing.
    case priority(UInt8, [QueueTarget])
    /// The part of its file an entry plays (MPD `rangeid`; nil: all of it). Refused for the entry playing.
    case setRange(EntryID, PlaySpan?)
}

/// Which queue songs to read.
public enum QueueQuery: Sendable, Hashable {
    case all
    /// `playlistinfo N` / `START:END`: a range past the end is `Bad song index`.
    case positions(PositionRange)
    /// `playlistid ID`: an unknown id is `No such song`.
    case id(EntryID)
    /// `plchanges VERSION [START:END]`: entries changed (added or moved) after queue version `version`.
    case changes(since: UInt32, window: PositionRange?)
    /// `playlistfind` / `playlistsearch`.
    case matching(SongFilter)
}
