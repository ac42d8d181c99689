import Decoders
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

    /// Runs `body` in one transaction with `synchronous=FULL`. After a failure, the next write replaces the saved queue
    /// and state wholesale from the newest copies instead (so a missed incremental edit cannot leave rows stale).
    /// Returns whether the database now holds the newest state.
    func write(_ body: @escaping @Sendable (Database) throws -> Void) async -> Bool {
        // Inside a command list (and while writes succeed): held until the list ends, then committed with the rest.
        if DeferredWrites.active, !failing {
            deferred.append(body)
            return true
        }
        let held = deferred
        deferred = []
        let combined: @Sendable (Database) throws -> Void = { db in
            for earlier in held { try earlier(db) }
            try body(db)
        }
        let resync = failing
        let queue = lastQueue
        let snapshot = lastSnapshot
        let seq = sequence
        let pool = database.pool
        do {
            // An unstructured task: a cancelled caller (shutdown) must not abandon a write half-way through.
            try await Task {
                try await pool.writeWithoutTransaction { db in
                    try db.execute(sql: "PRAGMA synchronous = FULL")
                    defer { try? db.execute(sql: "PRAGMA synchronous = NORMAL") }
                    try db.inTransaction {
                        if resync {
                            try Self.rewriteAll(queue: queue, snapshot: snapshot, sequence: seq, db)
                        } else {
                            try combined(db)
                        }
                        return .commit
                    }
                }
            }.value
        } catch {
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
            if let queue {
                sortKeys = OrderKeys.renumber(queue.entries.map(\.id))
                shuffleKeys = queue.shuffledOrder.map(OrderKeys.renumber) ?? [:]
            }
        }
        return !resync || queue != nil || snapshot != nil
    }

    static func rewriteAll(queue: PlayQueue?, snapshot: PlayerSnapshot?, sequence: UInt64, _ db: Database) throws {
        if let queue {
            try db.execute(sql: "DELETE FROM queue_entry")
            let sort = OrderKeys.renumber(queue.entries.map(\.id))
            let shuffle = queue.shuffledOrder.map(OrderKeys.renumber)
            for entry in queue.entries { try insert(entry, sortKey: sort[entry.id]!, shuffleKey: shuffle?[entry.id], db) }
        }
        if let snapshot {
            try writeSnapshot(snapshot, shuffled: queue.map { $0.shuffledOrder != nil }, sequence: sequence, db)
        }
    }

    static func insert(_ entry: QueueEntry, sortKey: Int64, shuffleKey: Int64?, _ db: Database) throws {
        let rg = entry.replayGain
        // A cached statement: `add /` inserts thousands of rows in one transaction (compiling the SQL for each row
        // cost more than inserting it).
        try db.cachedStatement(sql: """
            INSERT INTO queue_entry (id, sort_key, shuffle_key, uri, version, rg_track_gain, rg_track_peak, rg_album_gain,
                                     rg_album_peak) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [entry.id, sortKey, shuffleKey, entry.uri, entry.version, rg.trackGain,
                                     rg.trackPeak, rg.albumGain, rg.albumPeak])
    }

    /// Writes the state row; `shuffled` nil keeps the stored flag.
    static func writeSnapshot(_ s: PlayerSnapshot, shuffled: Bool?, sequence: UInt64, _ db: Database) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO player_state (id) VALUES (1)")
        try db.execute(sql: """
            UPDATE player_state SET transport = ?, current_entry = ?, position_frames = ?, sample_rate = ?, volume = ?,
                repeat_mode = ?, single = ?, consume = ?, replay_gain = ?, shuffled = COALESCE(?, shuffled),
                loop_entry = ?, loop_start = ?, loop_end = ?, loop_count = ?, queue_version = ?, next_entry_id = ?,
                position_seq = ?
            WHERE id = 1
            """, arguments: [s.transport.rawValue, s.currentEntry, s.positionFrames, s.sampleRate, s.volume,
                             s.repeatMode.rawValue, s.single, s.consume, s.replayGain.rawValue, shuffled,
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
            s.loop = (entry, LoopRegion(start: start, end: end, repeatCount: row["loop_count"]))
        }
        s.queueVersion = row["queue_version"]
        s.nextEntryID = row["next_entry_id"]
        return (s, row["shuffled"], UInt64(bitPattern: row["position_seq"]))
    }

    static func entry(_ row: Row) -> QueueEntry {
        QueueEntry(id: row["id"], uri: row["uri"],
                   replayGain: ReplayGainInfo(trackGain: row["rg_track_gain"], trackPeak: row["rg_track_peak"],
                                              albumGain: row["rg_album_gain"], albumPeak: row["rg_album_peak"]),
                   version: row["version"])
    }
}
