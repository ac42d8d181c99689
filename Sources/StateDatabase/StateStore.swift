import DatabaseFile
import FermataCore
import Foundation
import GRDB
import Logging
import Synchronization

/// Saves the queue and the player state in the state database, writing as few rows as possible: the queue as runs of
/// entries (`QueueSegments`: an edit rewrites only the runs it changed) and one row for the player state. Queue edits
/// and state changes commit with `synchronous=FULL` (durable when the call returns, power cut included). Position checkpoints, the most frequent
/// write, go to a one-sector `PositionFile` beside the database (the database when that file cannot be used); every
/// save of a position carries a sequence number, and on load the newer of the two wins.
///
/// When a write fails (disk full, read-only), the player keeps going from memory: the store logs once, and the next
/// successful write rewrites the whole queue and state so nothing stays out of date.
/// Rows are GRDB records (`StateRecords.swift`); the write pipeline (ordering, command lists, recovery) is here,
/// with all of the store's state private to this file.
///
/// Threads: an actor; the player actor calls it one call at a time.
public actor StateStore: PlayerPersistence {
    let database: FermataDatabase
    let logger: Logger
    /// The queue's rows as last written (or held back by a command list).
    private var segments = QueueSegments()
    /// The shuffled order as last written (nil: shuffle off).
    private var writtenShuffle: [EntryID]?
    /// Whether `lastQueue` has edits not yet planned into rows (a command list plans them once, when it ends).
    private var queueDirty = false
    private var failing = false
    /// Where position checkpoints go while the database writes succeed; nil when the file cannot be made.
    let positionFile: PositionFile?
    /// The number of the newest position save (database or file); the next save gets the next number.
    private var sequence: UInt64 = 0
    /// The newest queue and state handed to the store, for the full rewrite after a failure.
    private var lastQueue: PlayQueue?
    private var lastSnapshot: PlayerSnapshot?
    /// The newest snapshot's `writeNumber` (the player's count of durable writes): older checkpoints are dropped.
    private var lastWriteNumber = 0
    /// The newest write in flight or done (nil: none yet); the next one waits for it (`write`). Its value is the
    /// error it failed with, nil when it was committed.
    private var lastWrite: Task<(any Error)?, Never>?
    /// Writes a command list's task held back until the list ends (`DeferredWrites`), in order.
    private var deferred: [@Sendable (Database) throws -> Void] = []
    /// Writes that failed since start (for `fermata doctor` and tests).
    public private(set) var failedWrites = 0
    /// Whether the newest write failed (and nothing has been written since).
    public var isFailing: Bool { failing }

    public init(database: FermataDatabase, logger: Logger) {
        self.database = database
        self.logger = logger
        let path = database.path + "-position"
        positionFile = PositionFile(path: path)
        if positionFile == nil { logger.notice("cannot prepare \(path): position checkpoints go to the database") }
    }

    // MARK: loading

    /// What a restart needs first: the saved state and the current and next entries (by list order).
    /// `snapshot` is nil on a first start (nothing saved yet). Call it before saving anything: it also sets the
    /// sequence number new position saves continue from.
    public func loadHead() async throws -> (snapshot: PlayerSnapshot?, shuffled: Bool, entries: [QueueEntry]) {
        let checkpointed = positionFile.flatMap { PositionFile.read(path: $0.path) }
        let logger = logger
        let (head, savedSequence) = try await database.pool.read { db in
            guard let saved = try PlayerStateRecord.fetchOne(db, key: 1) else {
                return ((PlayerSnapshot?.none, false, [QueueEntry]()), UInt64(0))
            }
            let shuffled = try ShuffleStateRecord.fetchOne(db, key: 1)?.shuffled ?? false
            var snapshot = saved.snapshot
            if let checkpointed, checkpointed.sequence > saved.sequence {
                snapshot.currentEntry = checkpointed.entry
                snapshot.positionFrames = checkpointed.frame
                snapshot.sampleRate = checkpointed.sampleRate
            }
            var entries: [QueueEntry] = []
            if let current = snapshot.currentEntry {
                // Runs in list order until the current entry and the one after it are found.
                let rows = try QueueSegmentRecord.inListOrder.fetchCursor(db)
                search: while let row = try rows.next() {
                    for entry in Self.decodeSegment(row, logger: logger)?.entries ?? [] {
                        if !entries.isEmpty {
                            entries.append(entry)
                            break search
                        }
                        if entry.id == current { entries.append(entry) }
                    }
                }
            }
            return ((snapshot, shuffled, entries), saved.sequence)
        }
        // New saves must outnumber both, also a record left by a database since moved aside.
        sequence = max(sequence, savedSequence, checkpointed?.sequence ?? 0)
        return head
    }

    /// The whole saved queue in list order, and the shuffled order when shuffle is on. A run whose text cannot be read
    /// is left out (and logged) rather than losing the whole queue.
    public func loadQueue() async throws -> (entries: [QueueEntry], shuffledOrder: [EntryID]?) {
        let logger = logger
        let (loaded, shuffle) = try await database.pool.read { db in
            var loaded: [(segment: QueueSegments.Segment, key: Int64)] = []
            let rows = try QueueSegmentRecord.inListOrder.fetchCursor(db)
            while let row = try rows.next() {
                if let segment = Self.decodeSegment(row, logger: logger) { loaded.append((segment, row.sortKey)) }
            }
            let text = try ShuffleStateRecord.fetchOne(db, key: 1)?.shuffleOrder
            let shuffle = text.flatMap { try? QueueSegmentCodec.decode(ids: $0) }
            return (loaded, shuffle)
        }
        segments = QueueSegments(loaded: loaded)
        writtenShuffle = shuffle
        let entries = loaded.flatMap(\.segment.entries)
        // The saved order, less ids no longer queued, plus any the order missed (a hand-edited database).
        let order = shuffle.map { saved -> [EntryID] in
            let queued = Set(entries.map(\.id))
            let kept = saved.filter(queued.contains)
            let listed = Set(kept)
            return kept + entries.map(\.id).filter { !listed.contains($0) }
        }
        return (entries, order)
    }

    /// A `queue_segment` row's entries; nil (logged) when its text is damaged.
    private static func decodeSegment(_ row: QueueSegmentRecord, logger: Logger) -> QueueSegments.Segment? {
        do {
            let entries = try QueueSegmentCodec.decode(row.entries)
            return entries.isEmpty ? nil : QueueSegments.Segment(id: row.id, entries: entries)
        } catch {
            logger.error("saved queue: run \(row.id) left out: \(error)")
            return nil
        }
    }

    // MARK: PlayerPersistence

    /// Saves the state, and the queue when given: the store compares it with the runs it last wrote and writes the
    /// difference.
    public func save(_ snapshot: PlayerSnapshot, queue: PlayQueue?, writeNumber: Int) async {
        lastWriteNumber = max(lastWriteNumber, writeNumber)
        if let queue {
            lastQueue = queue
            queueDirty = true
        }
        lastSnapshot = snapshot
        let seq = nextSequence()
        _ = await write { db in try PlayerStateRecord(snapshot, sequence: seq).upsert(db) }
    }

    public func checkpoint(entry: EntryID, frame: Int64, sampleRate: Int, writeNumber: Int) async {
        // Read before a snapshot that is already here: stale (it would bring back the entry a stop or a clear left).
        guard writeNumber >= lastWriteNumber else { return }
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
            try PlayerStateRecord.savePosition(entry: entry, frame: frame, sampleRate: sampleRate, sequence: seq, db)
        }
    }

    // MARK: writing

    /// Commits the writes a command list held back (`DeferredWrites`), in one transaction; call when the list ends,
    /// before its client hears `OK`.
    public func flushDeferred() async {
        guard !deferred.isEmpty else { return }
        _ = await DeferredWrites.$active.withValue(false) { await write { _ in } }
    }

    /// Runs `body` in one transaction with `synchronous=FULL`, after the queue's rows when the queue changed since the
    /// last write. After a failure, the next write replaces the saved queue and state wholesale from the newest copies
    /// instead (so a missed edit cannot leave rows stale). Returns whether the database now holds the newest state.
    func write(_ body: @escaping @Sendable (Database) throws -> Void) async -> Bool {
        // Inside a command list (and while writes succeed): held until the list ends, then committed with the rest.
        if DeferredWrites.active, !failing {
            deferred.append(body)
            return true
        }
        let held = deferred
        deferred = []
        let resync = failing
        // The queue's rows, planned once for all the edits since the last write (a command list's included).
        let rows: QueueRows? = if resync { lastQueue.map(rewrittenQueueRows) } else if queueDirty { plannedQueueRows() } else { nil }
        queueDirty = false
        let snapshot = resync ? lastSnapshot : nil
        let seq = sequence
        let pool = database.pool
        // Writes run in the order they were planned (the actor is re-entered while one is awaited, and a queue write
        // is a difference from the one before it); one whose predecessor failed is not applied, except the rewrite of
        // everything that follows a failure. An unstructured task: a cancelled caller (shutdown) must not abandon a
        // write half-way through.
        let previous = lastWrite
        let work = Task { () async -> (any Error)? in
            if let failed = await previous?.value, !resync { return failed }
            do {
                try await pool.writeWithoutTransaction { db in
                    try db.execute(sql: "PRAGMA synchronous = FULL")
                    defer { try? db.execute(sql: "PRAGMA synchronous = NORMAL") }
                    try db.inTransaction {
                        if !resync { for earlier in held { try earlier(db) } }
                        if let rows { try rows.apply(db) }
                        if let snapshot {
                            try PlayerStateRecord(snapshot, sequence: seq).upsert(db)
                        } else if !resync {
                            try body(db)
                        }
                        return .commit
                    }
                }
                return nil
            } catch {
                return error
            }
        }
        lastWrite = work
        if let error = await work.value {
            failedWrites += 1
            if !failing {
                logger.error("cannot save the player state (\(error)); playing on from memory, retrying at each change")
            }
            failing = true
            return false
        }
        if resync {
            failing = false
            logger.notice("player state saved again")
        }
        return !resync || rows != nil || snapshot != nil
    }

    private func plannedQueueRows() -> QueueRows? {
        guard let queue = lastQueue else { return nil }
        let change = segments.update(to: queue.entries)
        let shuffle: [EntryID]?? = queue.shuffledOrder == writtenShuffle ? .none : .some(queue.shuffledOrder)
        writtenShuffle = queue.shuffledOrder
        return QueueRows(change: change, shuffle: shuffle)
    }

    /// Every row anew, after a failed write left the stored rows unknown.
    private func rewrittenQueueRows(_ queue: PlayQueue) -> QueueRows {
        writtenShuffle = queue.shuffledOrder
        return QueueRows(clearAll: true, change: segments.rewrite(queue.entries), shuffle: .some(queue.shuffledOrder))
    }

    private func nextSequence() -> UInt64 {
        sequence += 1
        return sequence
    }
}
