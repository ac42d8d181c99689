import Decoders
import Engine
import FermataCore
import GRDB
import Player

/// The store's SQL: durable writes, the full rewrite after a failure, and row mapping.
extension StateStore {
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
                        if let rows { try Self.apply(rows, db) }
                        if let snapshot {
                            try Self.writeSnapshot(snapshot, sequence: seq, db)
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

    /// What the queue's rows must become: the runs that changed, and the shuffled order when it changed.
    struct QueueRows: Sendable {
        var clearAll = false
        var change: QueueSegments.Change
        /// nil: the stored order stays; `.some(nil)`: shuffle went off.
        var shuffle: [EntryID]??
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

    static func apply(_ rows: QueueRows, _ db: Database) throws {
        if rows.clearAll { try db.execute(sql: "DELETE FROM queue_segment") }
        for id in rows.change.removed {
            try db.cachedStatement(sql: "DELETE FROM queue_segment WHERE id = ?").execute(arguments: [id])
        }
        for (segment, key) in rows.change.inserted {
            try db.cachedStatement(sql: "INSERT INTO queue_segment (id, sort_key, entries) VALUES (?, ?, ?)")
                .execute(arguments: [segment.id, key, QueueSegmentCodec.encode(segment.entries)])
        }
        for (id, key) in rows.change.rekeyed {
            try db.cachedStatement(sql: "UPDATE queue_segment SET sort_key = ? WHERE id = ?").execute(arguments: [key, id])
        }
        if let shuffle = rows.shuffle {
            try db.execute(sql: "INSERT OR IGNORE INTO player_state (id) VALUES (1)")
            try db.execute(sql: "UPDATE player_state SET shuffled = ?, shuffle_order = ? WHERE id = 1",
                           arguments: [shuffle != nil, shuffle.map(QueueSegmentCodec.encode(ids:))])
        }
    }

    /// Writes the state row (the shuffled order is the queue's: `apply`).
    static func writeSnapshot(_ s: PlayerSnapshot, sequence: UInt64, _ db: Database) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO player_state (id) VALUES (1)")
        try db.execute(sql: """
            UPDATE player_state SET transport = ?, current_entry = ?, position_frames = ?, sample_rate = ?, volume = ?,
                repeat_mode = ?, single = ?, consume = ?, replay_gain = ?,
                loop_entry = ?, loop_start = ?, loop_end = ?, loop_count = ?, queue_version = ?, next_entry_id = ?,
                position_seq = ?
            WHERE id = 1
            """, arguments: [s.transport.rawValue, s.currentEntry, s.positionFrames, s.sampleRate, s.volume,
                             s.repeatMode.rawValue, s.single, s.consume, s.replayGain.rawValue,
                             s.loop?.entry, s.loop?.region.start, s.loop?.region.end, s.loop?.region.repeatCount,
                             s.queueVersion, s.nextEntryID, Int64(bitPattern: sequence)])
    }

    /// The state row: the snapshot, the shuffle flag and the sequence number of its position; nil before the first save.
    static func readSnapshot(_ db: Database) throws -> (snapshot: PlayerSnapshot, shuffled: Bool, sequence: UInt64)? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM player_state WHERE id = 1") else { return nil }
        var s = PlayerSnapshot()
        s.transport = PlayerSnapshot.Transport(rawValue: row["transport"]) ?? .stopped
        s.currentEntry = row["current_entry"]
        s.positionFrames = row["position_frames"]
        s.sampleRate = row["sample_rate"]
        s.volume = row["volume"]
        s.repeatMode = RepeatMode(rawValue: row["repeat_mode"]) ?? .off
        s.single = row["single"]
        s.consume = row["consume"]
        s.replayGain = ReplayGainMode(rawValue: row["replay_gain"]) ?? .off
        if let entry = row["loop_entry"] as EntryID?, let start = row["loop_start"] as Int64?,
           let end = row["loop_end"] as Int64? {
            s.loop = EntryLoop(entry: entry, region: LoopRegion(start: start, end: end, repeatCount: row["loop_count"]))
        }
        s.queueVersion = row["queue_version"]
        s.nextEntryID = row["next_entry_id"]
        return (s, row["shuffled"], UInt64(bitPattern: row["position_seq"]))
    }

}
