import Decoders
import FermataCore
import Foundation
import GRDB
import Library
import Logging
import Player
import Synchronization

/// Saves the queue and the player state in the state database, writing as few rows as possible: sparse sort keys
/// (an edit rewrites only the rows it moved) and one row for the player state. Queue edits and state changes commit
/// with `synchronous=FULL` (durable when the call returns, power cut included). Position checkpoints, the most frequent
/// write, go to a one-sector `PositionFile` beside the database (the database when that file cannot be used); every
/// save of a position carries a sequence number, and on load the newer of the two wins.
///
/// When a write fails (disk full, read-only), the player keeps going from memory: the store logs once, and the next
/// successful write rewrites the whole queue and state so nothing stays out of date.
/// Threads: an actor; the player actor calls it one call at a time.
public actor StateStore: PlayerPersistence {
    let database: LibraryDatabase
    let logger: Logger
    var sortKeys: [EntryID: Int64] = [:]
    var shuffleKeys: [EntryID: Int64] = [:]
    var failing = false
    /// Where position checkpoints go while the database writes succeed; nil when the file cannot be made.
    let positionFile: PositionFile?
    /// The number of the newest position save (database or file); the next save gets the next number.
    var sequence: UInt64 = 0
    /// The newest queue and state handed to the store, for the full rewrite after a failure.
    var lastQueue: PlayQueue?
    var lastSnapshot: PlayerSnapshot?
    /// Writes a command list's task held back until the list ends (`DeferredWrites`), in order.
    var deferred: [@Sendable (Database) throws -> Void] = []
    /// Writes that failed since start (for `fermata doctor` and tests).
    public internal(set) var failedWrites = 0
    /// Whether the newest write failed (and nothing has been written since).
    public var isFailing: Bool { failing }

    public init(database: LibraryDatabase, logger: Logger) {
        self.database = database
        self.logger = logger
        let path = database.path + "-position"
        positionFile = PositionFile(path: path)
        if positionFile == nil { logger.notice("cannot prepare \(path): position checkpoints go to the database") }
    }

    /// The state database with the daemon's tables.
    public static func open(stateDirectory: String) throws -> LibraryDatabase {
        try LibraryDatabase(stateDirectory: stateDirectory) { StateMigrations.register(in: &$0) }
    }

    // MARK: loading

    /// What a restart needs first: the saved state and the current and next entries (by list order).
    /// `snapshot` is nil on a first start (nothing saved yet). Call it before saving anything: it also sets the
    /// sequence number new position saves continue from.
    public func loadHead() async throws -> (snapshot: PlayerSnapshot?, shuffled: Bool, entries: [QueueEntry]) {
        let checkpointed = positionFile.flatMap { PositionFile.read(path: $0.path) }
        let (head, savedSequence) = try await database.pool.read { db in
            guard let saved = try Self.readSnapshot(db) else { return ((PlayerSnapshot?.none, false, [QueueEntry]()), UInt64(0)) }
            var snapshot = saved.snapshot
            if let checkpointed, checkpointed.sequence > saved.sequence {
                snapshot.currentEntry = checkpointed.entry
                snapshot.positionFrames = checkpointed.frame
                snapshot.sampleRate = checkpointed.sampleRate
            }
            var entries: [QueueEntry] = []
            if let current = snapshot.currentEntry,
               let row = try Row.fetchOne(db, sql: "SELECT * FROM queue_entry WHERE id = ?", arguments: [current]) {
                entries.append(Self.entry(row))
                let key: Int64 = row["sort_key"]
                if let next = try Row.fetchOne(db, sql: "SELECT * FROM queue_entry WHERE sort_key > ? ORDER BY sort_key LIMIT 1",
                                               arguments: [key]) { entries.append(Self.entry(next)) }
            }
            return ((snapshot, saved.shuffled, entries), saved.sequence)
        }
        // New saves must outnumber both, also a record left by a database since moved aside.
        sequence = max(sequence, savedSequence, checkpointed?.sequence ?? 0)
        return head
    }

    /// The whole saved queue in list order, and the shuffled order when shuffle is on.
    public func loadQueue() async throws -> (entries: [QueueEntry], shuffledOrder: [EntryID]?) {
        let (entries, keys, shuffle, shuffled) = try await database.pool.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM queue_entry ORDER BY sort_key")
            let shuffled: Bool = try Bool.fetchOne(db, sql: "SELECT shuffled FROM player_state WHERE id = 1") ?? false
            let keys = Dictionary(uniqueKeysWithValues: rows.map { ($0["id"] as EntryID, $0["sort_key"] as Int64) })
            let shuffle = Dictionary(uniqueKeysWithValues: rows.compactMap { row -> (EntryID, Int64)? in
                (row["shuffle_key"] as Int64?).map { (row["id"], $0) }
            })
            return (rows.map(Self.entry), keys, shuffle, shuffled)
        }
        sortKeys = keys
        shuffleKeys = shuffle
        let order = shuffled ? entries.map(\.id).sorted { (shuffle[$0] ?? 0, $0) < (shuffle[$1] ?? 0, $1) } : nil
        return (entries, order)
    }

    // MARK: PlayerPersistence

    public func saveQueueEdit(_ edit: PersistedQueueEdit, queue: PlayQueue, snapshot: PlayerSnapshot) async {
        lastQueue = queue
        lastSnapshot = snapshot
        var inserted: [QueueEntry] = []
        var removed: Set<EntryID> = []
        switch edit {
        case .cleared:
            sortKeys = [:]
            shuffleKeys = [:]
        case let .removed(ids):
            removed = ids
            for id in ids { sortKeys[id] = nil; shuffleKeys[id] = nil }
        case let .inserted(entries, _):
            inserted = entries
        case .reordered, .shuffleOrder:
            break
        }
        let cleared: Bool = if case .cleared = edit { true } else { false }
        let (removedIDs, insertedEntries) = (removed, inserted)
        let sortUpdates = Self.insertionKeys(edit, queue: queue, existing: sortKeys)
            ?? OrderKeys.plan(order: queue.entries.map(\.id), existing: sortKeys)
        // Only entries at or after an insertion point can have been touched by it (MPD `plchanges` versions).
        let touched: ArraySlice<QueueEntry> = if case let .inserted(_, at) = edit, at <= queue.entries.count {
            queue.entries[at...]
        } else {
            queue.entries[...]
        }
        let insertedIDs = Set(insertedEntries.map(\.id))
        // Only small values go into the write: a command list holds its writes until it ends, and a closure holding
        // the queue would keep one copy of it per edit alive (10,000 adds: 3 GB).
        let versionUpdates = touched.filter { $0.version == queue.version && !insertedIDs.contains($0.id) }
            .map { (id: $0.id, version: $0.version) }
        let shuffled = queue.shuffledOrder != nil
        let shuffleUpdates = queue.shuffledOrder.map { OrderKeys.plan(order: $0, existing: shuffleKeys) }
        let shuffleOff = queue.shuffledOrder == nil && !shuffleKeys.isEmpty
        let seq = nextSequence()
        let written = await write { db in
            if cleared { try db.execute(sql: "DELETE FROM queue_entry") }
            for id in removedIDs {
                try db.cachedStatement(sql: "DELETE FROM queue_entry WHERE id = ?").execute(arguments: [id])
            }
            for entry in insertedEntries {
                try Self.insert(entry, sortKey: sortUpdates[entry.id] ?? 0, shuffleKey: shuffleUpdates?[entry.id], db)
            }
            for (id, key) in sortUpdates where !insertedIDs.contains(id) {
                try db.cachedStatement(sql: "UPDATE queue_entry SET sort_key = ? WHERE id = ?").execute(arguments: [key, id])
            }
            for (id, key) in shuffleUpdates ?? [:] where !insertedIDs.contains(id) {
                try db.cachedStatement(sql: "UPDATE queue_entry SET shuffle_key = ? WHERE id = ?").execute(arguments: [key, id])
            }
            if shuffleOff { try db.execute(sql: "UPDATE queue_entry SET shuffle_key = NULL") }
            for update in versionUpdates {
                try db.cachedStatement(sql: "UPDATE queue_entry SET version = ? WHERE id = ?")
                    .execute(arguments: [update.version, update.id])
            }
            try Self.writeSnapshot(snapshot, shuffled: shuffled, sequence: seq, db)
        }
        if written {
            sortKeys.merge(sortUpdates) { $1 }
            if let shuffleUpdates { shuffleKeys.merge(shuffleUpdates) { $1 } }
            if shuffleOff { shuffleKeys = [:] }
        }
    }

    /// New sort keys for a contiguous insertion whose neighbours already have keys, without looking at the rest of
    /// the queue; nil for other edits or when the keys do not fit.
    static func insertionKeys(_ edit: PersistedQueueEdit, queue: PlayQueue, existing: [EntryID: Int64]) -> [EntryID: Int64]? {
        guard case let .inserted(entries, at) = edit, !entries.isEmpty, at + entries.count <= queue.entries.count,
              queue.entries[at].id == entries[0].id else { return nil }
        let end = at + entries.count
        let before = at > 0 ? existing[queue.entries[at - 1].id] : nil
        let after = end < queue.entries.count ? existing[queue.entries[end].id] : nil
        if at > 0 && before == nil || end < queue.entries.count && after == nil { return nil }
        return OrderKeys.insertion(entries.map(\.id), before: before, after: after)
    }

    public func saveSnapshot(_ snapshot: PlayerSnapshot) async {
        lastSnapshot = snapshot
        let seq = nextSequence()
        _ = await write { db in try Self.writeSnapshot(snapshot, shuffled: nil, sequence: seq, db) }
    }

    public func checkpoint(entry: EntryID, frame: Int64, sampleRate: Int) async {
        lastSnapshot?.currentEntry = entry
        lastSnapshot?.positionFrames = frame
        lastSnapshot?.sampleRate = sampleRate
        let seq = nextSequence()
        // While database writes fail, checkpoints go there too: the first one that succeeds rewrites everything missed.
        if !failing, let positionFile,
           await positionFile.save(SavedPosition(sequence: seq, entry: entry, frame: frame, sampleRate: sampleRate)) {
            return
        }
        _ = await write { db in
            try db.execute(sql: """
                UPDATE player_state SET current_entry = ?, position_frames = ?, sample_rate = ?, position_seq = ? WHERE id = 1
                """, arguments: [entry, frame, sampleRate, Int64(bitPattern: seq)])
        }
    }

    private func nextSequence() -> UInt64 {
        sequence += 1
        return sequence
    }
}
