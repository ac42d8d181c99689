import DatabaseFile
import FermataCore
import Foundation
import GRDB
import StateDatabase

/// A track's practice memory: the A–B region and tempo it was last practised with.
public struct TrackMemory: Sendable, Hashable {
    public var loop: PracticeSubject.LoopMilliseconds?
    public var loopCount: Int?
    public var tempoPercent: Int

    public init(loop: PracticeSubject.LoopMilliseconds? = nil, loopCount: Int? = nil, tempoPercent: Int = 100) {
        self.loop = loop
        self.loopCount = loopCount
        self.tempoPercent = tempoPercent
    }
}

/// Reads and writes the practice tables (`PracticeMigrations`). A path is turned into the track's stable identity
/// inside each transaction, so time and memory follow a moved file once the library has rescanned it.
/// Sendable; any task may call it (GRDB runs the SQL on its own queues).
public struct PracticeStore: Sendable {
    let database: FermataDatabase

    public init(database: FermataDatabase) { self.database = database }

    /// Adds the seconds to their rows, all in one transaction.
    func add(_ rows: [PracticeTally.Key: Double]) async throws {
        try await database.pool.write { db in
            for (key, seconds) in rows {
                let (subject, identity) = try Self.subject(db, path: key.subject.path)
                try db.execute(sql: """
                    INSERT INTO practice_time (day, subject, identity_id, path, loop_start_ms, loop_end_ms, seconds)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (day, subject, loop_start_ms, loop_end_ms)
                    DO UPDATE SET seconds = seconds + excluded.seconds, path = excluded.path
                    """, arguments: [key.day, subject, identity, key.subject.path, key.subject.loop?.start ?? -1,
                                     key.subject.loop?.end ?? -1, seconds])
            }
        }
    }

    /// Every track practised from `firstDay` to `lastDay` (inclusive), with its loop regions, most practised first.
    func tracks(from firstDay: String, to lastDay: String) async throws -> [PracticeTrackTime] {
        try await database.pool.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT subject, max(identity_id), max(path), loop_start_ms, loop_end_ms, total(seconds)
                FROM practice_time WHERE day BETWEEN ? AND ?
                GROUP BY subject, loop_start_ms, loop_end_ms
                """, arguments: [firstDay, lastDay])
            var tracks: [String: PracticeTrackTime] = [:]
            for row in rows {
                let subject: String = row[0]
                if tracks[subject] == nil {
                    tracks[subject] = try Self.describe(db, identity: row[1], lastPath: row[2])
                }
                let seconds: Double = row[5]
                tracks[subject]?.seconds += seconds
                let (start, end): (Int64, Int64) = (row[3], row[4])
                if start >= 0 && end > start {
                    tracks[subject]?.loops.append(PracticeLoopTime(startSeconds: Double(start) / 1000,
                                                                   endSeconds: Double(end) / 1000, seconds: seconds))
                }
            }
            return tracks.values.map { track in
                var track = track
                track.loops.sort { ($0.seconds, $1.startSeconds) > ($1.seconds, $0.startSeconds) }
                return track
            }.sorted { ($0.seconds, $1.file) > ($1.seconds, $0.file) }
        }
    }

    /// The memory of the track at `path`, or nil when none was saved.
    func memory(path: String) async throws -> TrackMemory? {
        try await database.pool.read { db in
            let (subject, _) = try Self.subject(db, path: path)
            guard let row = try Row.fetchOne(db, sql: """
                SELECT loop_start_ms, loop_end_ms, loop_count, tempo_percent FROM practice_memory WHERE subject = ?
                """, arguments: [subject]) else { return nil }
            var memory = TrackMemory(loopCount: row[2], tempoPercent: row[3])
            if let start: Int64 = row[0], let end: Int64 = row[1], end > start {
                memory.loop = .init(start: start, end: end)
            }
            return memory
        }
    }

    /// Saves the memory of the track at `path`.
    func saveMemory(_ memory: TrackMemory, path: String, at date: Date) async throws {
        try await database.pool.write { db in
            let (subject, _) = try Self.subject(db, path: path)
            try db.execute(sql: """
                INSERT OR REPLACE INTO practice_memory
                    (subject, loop_start_ms, loop_end_ms, loop_count, tempo_percent, updated_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [subject, memory.loop?.start, memory.loop?.end, memory.loopCount,
                                 memory.tempoPercent, Int64(date.timeIntervalSince1970)])
        }
    }

    /// `identity:N` for a library track, `path:URI` for a file the library does not know.
    static func subject(_ db: Database, path: String) throws -> (String, Int64?) {
        if let id = try Int64.fetchOne(db, sql: "SELECT identity_id FROM track WHERE path = ?", arguments: [path]) {
            return ("identity:\(id)", id)
        }
        return ("path:" + path, nil)
    }

    /// The track's current path and tags (the last path played under when the library no longer has it).
    static func describe(_ db: Database, identity: Int64?, lastPath: String) throws -> PracticeTrackTime {
        let row = if let identity {
            try Row.fetchOne(db, sql: """
                SELECT path, title, artist FROM track WHERE identity_id = ? ORDER BY path LIMIT 1
                """, arguments: [identity])
        } else {
            try Row.fetchOne(db, sql: "SELECT path, title, artist FROM track WHERE path = ?", arguments: [lastPath])
        }
        guard let row else { return PracticeTrackTime(file: lastPath, seconds: 0) }
        return PracticeTrackTime(file: row[0], title: row[1], artist: row[2], seconds: 0)
    }
}
