import Decoders
import FermataCore

/// One entry of the play queue: a file under a stable id, with the ReplayGain values read from its tags.
public struct QueueEntry: Sendable, Hashable {
    public var id: EntryID
    public var path: String
    public var replayGain: ReplayGainInfo

    public init(id: EntryID, path: String, replayGain: ReplayGainInfo = ReplayGainInfo()) {
        self.id = id
        self.path = path
        self.replayGain = replayGain
    }
}

/// The ordered list of entries to play, with stable ids. A value type owned by the player actor.
public struct PlayQueue: Sendable {
    public private(set) var entries: [QueueEntry] = []
    private var nextID: EntryID = 1

    public init() {}

    /// Appends files; returns their new ids.
    @discardableResult
    public mutating func append(paths: [String], replayGain: [ReplayGainInfo]? = nil) -> [EntryID] {
        paths.enumerated().map { index, path in
            let id = nextID
            nextID += 1
            entries.append(QueueEntry(id: id, path: path, replayGain: replayGain?[index] ?? ReplayGainInfo()))
            return id
        }
    }

    public mutating func remove(id: EntryID) { entries.removeAll { $0.id == id } }
    public mutating func clear() { entries.removeAll() }

    public func index(of id: EntryID) -> Int? { entries.firstIndex { $0.id == id } }
    public func entry(id: EntryID) -> QueueEntry? { entries.first { $0.id == id } }
    public var isEmpty: Bool { entries.isEmpty }
    public var count: Int { entries.count }

    /// The entry after `id` in queue order; wraps to the first when `wrap`.
    public func entry(after id: EntryID, wrap: Bool) -> QueueEntry? {
        guard let index = index(of: id) else { return nil }
        if index + 1 < entries.count { return entries[index + 1] }
        return wrap ? entries.first : nil
    }

    /// The entry before `id`; wraps to the last when `wrap`.
    public func entry(before id: EntryID, wrap: Bool) -> QueueEntry? {
        guard let index = index(of: id) else { return nil }
        if index > 0 { return entries[index - 1] }
        return wrap ? entries.last : nil
    }
}
