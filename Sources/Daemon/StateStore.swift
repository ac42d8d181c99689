import Decoders
import Engine
import FermataCore
import Foundation
import GRDB
import Library
import Logging
import Player
import Synchronization

/// Saves the queue and the player state in the state database, writing as few rows as possible: the queue as runs of
/// entries (`QueueSegments`: an edit rewrites only the runs it changed) and one row for the player state. Queue edits
/// and state changes commit with `synchronous=FULL` (durable when the call returns, power cut included). Position checkpoints, the most frequent
/// write, go to a one-sector `PositionFile` beside the database (the database when that file cannot be used); every
/// save of a position carries a sequence number, and on load the newer of the two wins.
///
/// When a write fails (disk full, read-only), the player keeps going from memory: the store logs once, and the next
/// successful write rewrites the whole queue and state so nothing stays out of date.
/// Threads: an actor; the player actor calls it one call at a time.
public actor StateStore: PlayerPersistence {
    let database: LibraryDatabase
    let logger: Logger
    /// The queue's rows as last written (or held back by a command list).
    var segments = QueueSegments()
    /// The shuffled order as last written (nil: shuffle off).
    var writtenShuffle: [EntryID]?
    /// Whether `lastQueue` has edits not yet planned into rows (a command list plans them once, when it ends).
    var queueDirty = false
    var failing = false
    /// Where position checkpoints go while the database writes succeed; nil when the file cannot be made.
    let positionFile: PositionFile?
    /// The number of the newest position save (database or file); the next save gets the next number.
    var sequence: UInt64 = 0
    /// The newest queue and state handed to the store, for the full rewrite after a failure.
    var lastQueue: PlayQueue?
    var lastSnapshot: PlayerSnapshot?
    /// The newest write in flight or done (nil: none yet); the next one waits for it (`write`). Its value is the
    /// error it failed with, nil when it was committed.
    var lastWrite: Task<(any Error)?, Never>?
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
        let logger = logger
        let (head, savedSequence) = try await database.pool.read { db in
            guard let saved = try Self.readSnapshot(db) else { return ((PlayerSnapshot?.none, false, [QueueEntry]()), UInt64(0)) }
            var snapshot = saved.snapshot
            if let checkpointed, checkpointed.sequence > saved.sequence {
                snapshot.currentEntry = checkpointed.entry
                snapshot.positionFrames = checkpointed.frame
                snapshot.sampleRate = checkpointed.sampleRate
            }
            var entries: [QueueEntry] = []
            if let current = snapshot.currentEntry {
                // Runs in list order until the current entry and the one after it are found.
                let rows = try Row.fetchCursor(db, sql: "SELECT id, entries FROM queue_segment ORDER BY sort_key")
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
            return ((snapshot, saved.shuffled, entries), saved.sequence)
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
            let rows = try Row.fetchCursor(db, sql: "SELECT id, sort_key, entries FROM queue_segment ORDER BY sort_key")
            while let row = try rows.next() {
                if let segment = Self.decodeSegment(row, logger: logger) { loaded.append((segment, row["sort_key"])) }
            }
            let text = try String?.fetchOne(db, sql: "SELECT shuffle_order FROM player_state WHERE id = 1") ?? nil
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
    static func decodeSegment(_ row: Row, logger: Logger) -> QueueSegments.Segment? {
        let id: Int64 = row["id"]
        do {
            let entries = try QueueSegmentCodec.decode(row["entries"] as String)
            return entries.isEmpty ? nil : QueueSegments.Segment(id: id, entries: entries)
        } catch {
            logger.error("saved queue: run \(id) left out: \(error)")
            return nil
        }
    }

    // MARK: PlayerPersistence

    /// Saves the queue as it now is; `edit` is not needed: the store compares the queue with the runs it last wrote.
    public func saveQueueEdit(_ edit: PersistedQueueEdit, queue: PlayQueue, snapshot: PlayerSnapshot) async {
        lastQueue = queue
        lastSnapshot = snapshot
        queueDirty = true
        let seq = nextSequence()
        _ = await write { db in try Self.writeSnapshot(snapshot, sequence: seq, db) }
    }

    public func saveSnapshot(_ snapshot: PlayerSnapshot) async {
        lastSnapshot = snapshot
        let seq = nextSequence()
        _ = await write { db in try Self.writeSnapshot(snapshot, sequence: seq, db) }
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
