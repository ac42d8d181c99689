/// One entry of the play queue: a file under a stable id, with the ReplayGain values read from its tags.
public struct QueueEntry: Sendable, Hashable {
    public var id: EntryID
    /// The file as the user named it: relative to the music directory (MPD URI) or absolute.
    public var uri: String
    public var replayGain: ReplayGainInfo
    /// Queue version at which this entry was added or last moved (MPD `plchanges`).
    public var version: Int
    /// MPD's priority (0–255, `prio`/`prioid`): in random order, higher priorities play first; reset to 0 when the
    /// entry starts playing.
    public var priority: UInt8
    /// The part of the file it plays (nil: all of it, once).
    public var span: PlaySpan?

    public init(id: EntryID, uri: String, replayGain: ReplayGainInfo = ReplayGainInfo(), version: Int = 0,
                priority: UInt8 = 0, span: PlaySpan? = nil) {
        self.id = id
        self.uri = uri
        self.replayGain = replayGain
        self.version = version
        self.priority = priority
        self.span = span
    }
}

/// The ordered list of entries to play, with stable ids, a version counter (bumped by every edit) and an optional
/// shuffled play order that leaves the list itself untouched, so switching shuffle off returns to it.
/// A value type owned by the player actor.
public struct PlayQueue: Sendable, Equatable {
    public internal(set) var entries: [QueueEntry] = []
    public private(set) var nextID: EntryID = 1
    public internal(set) var version = 1
    /// The play order while shuffle (MPD `random`) is on: a permutation of the entry ids (its rules, with
    /// priorities, are in `PlayQueue+RandomOrder.swift`).
    public internal(set) var shuffledOrder: [EntryID]?

    public init() {}

    /// Restores a saved queue exactly.
    public init(entries: [QueueEntry], nextID: EntryID, version: Int, shuffledOrder: [EntryID]?) {
        self.entries = entries
        self.nextID = max(nextID, (entries.map(\.id).max() ?? 0) + 1)
        self.version = version
        self.shuffledOrder = shuffledOrder
    }

    public var isEmpty: Bool { entries.isEmpty }
    /// Playing in random order (MPD `random 1`).
    public var isShuffled: Bool { shuffledOrder != nil }
    public var count: Int { entries.count }
    public func index(of id: EntryID) -> Int? { entries.firstIndex { $0.id == id } }
    public func entry(id: EntryID) -> QueueEntry? { entries.first { $0.id == id } }

    // MARK: edits (each bumps `version`)

    /// Inserts files at `position` (default: the end); returns their new ids. In random order each new entry goes
    /// among those still to play after `playingAfter` (the entry queued next, or the current one; nil: anywhere), as
    /// MPD's `AppendSong` does.
    @discardableResult
    public mutating func insert<G: RandomNumberGenerator>(
        uris: [String], replayGain: [ReplayGainInfo]? = nil, spans: [PlaySpan?]? = nil, at position: Int? = nil,
        playingAfter: EntryID? = nil, using generator: inout G
    ) -> [EntryID] {
        guard !uris.isEmpty else { return [] }
        version += 1
        let at = min(max(0, position ?? entries.count), entries.count)
        let new = uris.enumerated().map { index, uri in
            defer { nextID += 1 }
            return QueueEntry(id: nextID, uri: uri, replayGain: replayGain?[index] ?? ReplayGainInfo(), version: version,
                              span: spans.flatMap { index < $0.count ? $0[index] : nil })
        }
        entries.insert(contentsOf: new, at: at)
        touch(from: at)
        if shuffledOrder != nil {
            for entry in new { appendToShuffledOrder(entry.id, playingAfter: playingAfter, using: &generator) }
        }
        return new.map(\.id)
    }

    @discardableResult
    public mutating func append(paths: [String], replayGain: [ReplayGainInfo]? = nil) -> [EntryID] {
        var generator = SystemRandomNumberGenerator()
        return insert(uris: paths, replayGain: replayGain, using: &generator)
    }

    /// Sets or clears the part of its file an entry plays (MPD `rangeid`); a change bumps the version and marks the
    /// entry changed for `plchanges`.
    public mutating func setSpan(_ span: PlaySpan?, of id: EntryID) {
        guard let index = index(of: id), entries[index].span != span else { return }
        version += 1
        entries[index].span = span
        entries[index].version = version
    }

    public mutating func remove(ids: Set<EntryID>) {
        guard let first = entries.firstIndex(where: { ids.contains($0.id) }) else { return }
        version += 1
        entries.removeAll { ids.contains($0.id) }
        shuffledOrder?.removeAll { ids.contains($0) }
        touch(from: first)
    }

    public mutating func remove(id: EntryID) { remove(ids: [id]) }

    /// Moves the entries at `range` so the first lands at `destination` (MPD `move` semantics).
    public mutating func move(_ range: Range<Int>, to destination: Int) {
        guard range.lowerBound >= 0, range.upperBound <= entries.count, !range.isEmpty,
              destination >= 0, destination + range.count <= entries.count else { return }
        version += 1
        let moving = Array(entries[range])
        entries.removeSubrange(range)
        entries.insert(contentsOf: moving, at: destination)
        touch(from: min(range.lowerBound, destination))
    }

    /// Exchanges the entries at two positions (MPD `swap`); both count as changed for `plchanges`.
    public mutating func swapAt(_ first: Int, _ second: Int) {
        // `swap N N` changes nothing but, as in MPD, is still a new queue version.
        guard entries.indices.contains(first), entries.indices.contains(second) else { return }
        version += 1
        entries.swapAt(first, second)
        entries[first].version = version
        entries[second].version = version
    }

    public mutating func clear() {
        guard !entries.isEmpty else { return }
        version += 1
        entries.removeAll()
        if shuffledOrder != nil { shuffledOrder = [] }
    }

    /// Permanently reorders the entries in `range` (MPD `shuffle`); `keepingFirst`, when in the range, goes to its
    /// start and the rest is shuffled after it.
    public mutating func shuffle<G: RandomNumberGenerator>(_ range: Range<Int>? = nil, keepingFirst: EntryID? = nil,
                                                           using generator: inout G) {
        var range = range ?? 0..<entries.count
        guard range.count > 1, range.upperBound <= entries.count else { return }
        version += 1
        let from = range.lowerBound
        if let keepingFirst, let at = index(of: keepingFirst), range.contains(at) {
            entries.swapAt(range.lowerBound, at)
            range = (range.lowerBound + 1)..<range.upperBound
        }
        entries[range].shuffle(using: &generator)
        touch(from: from)
    }

    /// Switches the shuffled play order on (highest priority first, each priority shuffled, `first` moved to the
    /// front: MPD's `SetRandom`) or off (back to list order).
    public mutating func setShuffled<G: RandomNumberGenerator>(_ on: Bool, first: EntryID?, using generator: inout G) {
        guard on != (shuffledOrder != nil) else { return }
        version += 1
        guard on else { shuffledOrder = nil; return }
        var order = prioritizedShuffle(using: &generator)
        if let first, let index = order.firstIndex(of: first) { order.insert(order.remove(at: index), at: 0) }
        shuffledOrder = order
    }

    private mutating func touch(from index: Int) {
        for i in index..<entries.count { entries[i].version = version }
    }

    // MARK: play order

    /// The entry after `id` in play order; wraps to the first when `wrap`.
    public func entry(after id: EntryID, wrap: Bool) -> QueueEntry? {
        let order = playOrder
        guard let index = order.firstIndex(of: id) else { return nil }
        if index + 1 < order.count { return entry(id: order[index + 1]) }
        return wrap ? order.first.flatMap(entry(id:)) : nil
    }

    /// The entry before `id` in play order; wraps to the last when `wrap`.
    public func entry(before id: EntryID, wrap: Bool) -> QueueEntry? {
        let order = playOrder
        guard let index = order.firstIndex(of: id) else { return nil }
        if index > 0 { return entry(id: order[index - 1]) }
        return wrap ? order.last.flatMap(entry(id:)) : nil
    }

    /// The first entry in play order.
    public var firstInPlayOrder: QueueEntry? { playOrder.first.flatMap(entry(id:)) }

    /// Entry ids in the order they will play.
    public var playOrder: [EntryID] { shuffledOrder ?? entries.map(\.id) }

    /// Entries changed since `version` (MPD `plchanges`), with their positions.
    public func changes(since version: Int) -> [(position: Int, entry: QueueEntry)] {
        entries.enumerated().filter { $0.element.version > version }.map { ($0.offset, $0.element) }
    }
}
