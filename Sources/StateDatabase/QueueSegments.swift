import FermataCore

/// The saved queue as runs of consecutive entries, one `queue_segment` row each (at most `maximumSize` entries,
/// JSON text by `QueueSegmentCodec`), ordered by sparse keys (`OrderKeys`), and how the rows follow an edited queue.
///
/// One row per entry made `add /` of 5,000 files cost more in SQLite inserts than MPD takes for the whole command, and
/// 10,000 queued `add`s ten times that. With segments an edit compares the new queue with the runs last written (O(n)
/// equality checks, no SQL): runs found unchanged are kept (at most their key changes), the rest are written anew.
/// An append rewrites the tail run; a move, delete or insert in the middle rewrites the one or two runs around it. Small
/// runs are merged into a neighbouring rewrite, so repeated single adds do not leave one-entry rows behind.
///
/// A value owned by `StateStore`.
struct QueueSegments {
    static let maximumSize = 256

    /// One run with its entries: as loaded, or to write.
    struct Segment: Sendable {
        let id: Int64
        let entries: [QueueEntry]
    }

    /// A run as written, as `update` compares it: its id, its first entry and one digest per entry (the entry's
    /// `hashValue`, over every field), not the entries — the player holds those, and a copy here doubled the queue's
    /// memory (2.75 MiB at 16,384 entries). A changed entry whose digest stayed the same (odds of 2⁻⁶⁴ per compare)
    /// would go unwritten.
    struct StoredRun: Sendable {
        let id: Int64
        let firstID: EntryID
        let digests: [Int]

        init(_ segment: Segment) {
            id = segment.id
            firstID = segment.entries.first?.id ?? 0
            digests = segment.entries.map(\.hashValue)
        }

        var count: Int { digests.count }
    }

    /// The rows an update needs: delete `removed`, insert `inserted` (with keys), give `rekeyed` new keys.
    struct Change: Sendable {
        var removed: [Int64] = []
        var inserted: [(segment: Segment, key: Int64)] = []
        var rekeyed: [(id: Int64, key: Int64)] = []
    }

    /// The runs as last written, in list order.
    private(set) var order: [StoredRun] = []
    private var keys: [Int64: Int64] = [:]
    private var nextID: Int64 = 1

    init() {}

    /// The rows as loaded from the database, in key order.
    init(loaded: [(segment: Segment, key: Int64)]) {
        order = loaded.map { StoredRun($0.segment) }
        keys = Dictionary(loaded.map { ($0.segment.id, $0.key) }, uniquingKeysWith: { $1 })
        nextID = (loaded.map(\.segment.id).max() ?? 0) + 1
    }

    /// Moves to `entries` and returns the rows that make the database match.
    mutating func update(to entries: [QueueEntry]) -> Change {
        var starts: [EntryID: Int] = [:]
        starts.reserveCapacity(order.count)
        for (index, run) in order.enumerated() { starts[run.firstID] = index }
        let digests = entries.map(\.hashValue)
        var newOrder: [StoredRun] = []
        var fresh: [Segment] = []
        var runStart: Int?
        var position = 0
        while position < entries.count {
            if let index = starts[entries[position].id], Self.matches(order[index].digests, digests, at: position) {
                let run = order[index]
                let small = run.count < Self.maximumSize / 2
                // A small run next to a rewrite joins it (when the result still fits in one row).
                if let start = runStart, small, position - start + run.count <= Self.maximumSize {
                    position += run.count
                    continue
                }
                if let start = runStart {
                    closeRun(entries, start..<position, newOrder: &newOrder, fresh: &fresh)
                    runStart = nil
                }
                newOrder.append(run)
                position += run.count
            } else {
                if runStart == nil {
                    runStart = position
                    // ... and a small run just before it too.
                    if let last = newOrder.last, last.count < Self.maximumSize / 2 {
                        newOrder.removeLast()
                        runStart = position - last.count
                    }
                }
                position += 1
            }
        }
        if let start = runStart { closeRun(entries, start..<entries.count, newOrder: &newOrder, fresh: &fresh) }
        let written = keys
        let survivors = Set(newOrder.map(\.id).filter { written[$0] != nil })
        var change = Change()
        change.removed = order.map(\.id).filter { !survivors.contains($0) }
        for id in change.removed { keys[id] = nil }
        let planned = OrderKeys.plan(order: newOrder.map(\.id), existing: keys)
        let freshIDs = Set(fresh.map(\.id))
        change.inserted = fresh.map { ($0, planned[$0.id]!) }
        change.rekeyed = planned.filter { !freshIDs.contains($0.key) }.map { ($0.key, $0.value) }
        keys.merge(planned) { $1 }
        order = newOrder
        return change
    }

    /// Starts over from nothing (after a failed write, when the stored rows are no longer known): every row is to be
    /// deleted and `entries` written anew.
    mutating func rewrite(_ entries: [QueueEntry]) -> Change {
        order = []
        keys = [:]
        return update(to: entries)
    }

    /// Cuts `range` of `entries` into new runs of at most `maximumSize`, evenly.
    private mutating func closeRun(_ entries: [QueueEntry], _ range: Range<Int>, newOrder: inout [StoredRun],
                                   fresh: inout [Segment]) {
        let pieces = (range.count + Self.maximumSize - 1) / Self.maximumSize
        var start = range.lowerBound
        for piece in 0..<pieces {
            let end = range.lowerBound + range.count * (piece + 1) / pieces
            let segment = Segment(id: nextID, entries: Array(entries[start..<end]))
            nextID += 1
            newOrder.append(StoredRun(segment))
            fresh.append(segment)
            start = end
        }
    }

    private static func matches(_ run: [Int], _ digests: [Int], at position: Int) -> Bool {
        guard position + run.count <= digests.count else { return false }
        for (offset, digest) in run.enumerated() where digests[position + offset] != digest { return false }
        return true
    }
}
