/// MPD's rules for the random play order and priorities (its `Queue.cxx` and `PlaylistControl.cxx`), so that a
/// client such as ncmpcpp that sets `prio` hears what it would hear from MPD: in random order, entries of higher
/// priority play first; each priority group plays shuffled; an entry's priority returns to 0 when it starts; `play N`
/// moves N into the order where it plays now without skipping what was still to come.
///
/// Pure value rules on `PlayQueue`; the player actor owns the queue and calls them.
extension PlayQueue {
    /// Whether any entry has a priority other than 0.
    public var hasPriorities: Bool { entries.contains { $0.priority != 0 } }

    /// A new random order: highest priority first, each priority group shuffled (MPD's `ShuffleOrder`).
    func prioritizedShuffle<G: RandomNumberGenerator>(using generator: inout G) -> [EntryID] {
        var groups: [UInt8: [EntryID]] = [:]
        for entry in entries { groups[entry.priority, default: []].append(entry.id) }
        var order: [EntryID] = []
        order.reserveCapacity(entries.count)
        for priority in groups.keys.sorted(by: >) { order += groups[priority]!.shuffled(using: &generator) }
        return order
    }

    /// Puts a new entry (already in `entries`) into the random order: at a random place among the entries after
    /// `playingAfter` that share its priority (0 for a new entry), as MPD's `ShuffleOrderLastWithPriority` — inserted
    /// there rather than swapped with the entry at that place, so every other entry keeps its place in the order
    /// (the saved order of untouched entries never changes, which the crash tests check).
    mutating func appendToShuffledOrder<G: RandomNumberGenerator>(_ id: EntryID, playingAfter: EntryID?,
                                                                   using generator: inout G) {
        guard var order = shuffledOrder else { return }
        var start = playingAfter.flatMap { order.firstIndex(of: $0) }.map { $0 + 1 } ?? 0
        if start < order.count {
            let priority = priorityByID
            let newPriority = priority[id] ?? 0
            while start < order.count, (priority[order[start]] ?? 0) > newPriority { start += 1 }
        }
        order.insert(id, at: Int.random(in: min(start, order.count)...order.count, using: &generator))
        shuffledOrder = order
    }

    /// Sets the priority of the entries at `positions` (MPD `prio`; `prioid` is one position). In random order an
    /// entry whose priority changed moves to a random place in its new priority group among those still to play
    /// after `current`; an entry already played moves there only when its priority rose above the current one's.
    /// Returns whether anything changed (the queue version then moves on once).
    @discardableResult
    public mutating func setPriority<G: RandomNumberGenerator>(_ priority: UInt8, positions: Range<Int>,
                                                               current: EntryID?, using generator: inout G) -> Bool {
        let positions = positions.clamped(to: entries.indices)
        guard positions.contains(where: { entries[$0].priority != priority }) else { return false }
        version += 1
        for position in positions where entries[position].priority != priority {
            let old = entries[position].priority
            entries[position].priority = priority
            entries[position].version = version
            reorderForPriority(entries[position].id, old: old, new: priority, current: current, using: &generator)
        }
        return true
    }

    /// An entry started playing: its priority returns to 0 (MPD's `SongStarted`), without moving it in the order.
    /// Returns whether it changed.
    @discardableResult
    public mutating func startedPlaying(_ id: EntryID) -> Bool {
        guard let index = index(of: id), entries[index].priority != 0 else { return false }
        version += 1
        entries[index].priority = 0
        entries[index].version = version
        return true
    }

    /// Moves `id` in the random order to where it plays now (MPD's `MoveOrderToCurrent` for `play N`): right after
    /// the current entry while playing, before it while stopped on it, else to the front. Nothing in list order.
    /// Returns whether the order changed.
    @discardableResult
    public mutating func moveToPlayNow(_ id: EntryID, current: EntryID?, playing: Bool) -> Bool {
        guard var order = shuffledOrder, let from = order.firstIndex(of: id) else { return false }
        var to = 0
        if let current, let at = order.firstIndex(of: current) {
            to = playing ? at + (from > at ? 1 : 0) : at - (from < at ? 1 : 0)
        }
        guard to != from else { return false }
        order.insert(order.remove(at: from), at: to)
        shuffledOrder = order
        return true
    }

    private var priorityByID: [EntryID: UInt8] {
        Dictionary(entries.map { ($0.id, $0.priority) }, uniquingKeysWith: { first, _ in first })
    }

    /// MPD's `Queue::SetPriority` reordering, for one entry whose priority went from `old` to `new`.
    private mutating func reorderForPriority<G: RandomNumberGenerator>(_ id: EntryID, old: UInt8, new: UInt8,
                                                                       current: EntryID?, using generator: inout G) {
        guard var order = shuffledOrder, let from = order.firstIndex(of: id) else { return }
        let priority = priorityByID
        let after = current.flatMap { order.firstIndex(of: $0) } ?? -1
        if after >= 0 {
            if from == after { return }  // the current entry stays where it is
            // Already played: back among those to play only when its priority rose above the current one's.
            if from < after, new <= old || new <= priority[order[after]] ?? 0 { return }
        }
        // The first place after the current entry whose priority is not above the new one (MPD's FindPriorityOrder).
        var before = after + 1
        while before < order.count, before == from || (priority[order[before]] ?? 0) > new { before += 1 }
        let to = before > from ? before - 1 : before
        order.insert(order.remove(at: from), at: to)
        // A random place within that priority group (MPD's ShuffleOrderFirst).
        var groupEnd = to
        while groupEnd < order.count, priority[order[groupEnd]] == new { groupEnd += 1 }
        order.swapAt(to, Int.random(in: to..<max(to + 1, groupEnd), using: &generator))
        shuffledOrder = order
    }
}
