import DatabaseFile
import FermataCore
import Foundation
import GRDB

/// A track's practice memory: the A–B region, tempo, transposition and beat it was last practised with.
public struct TrackMemory: Sendable, Hashable {
    public var loop: PracticeSubject.LoopMilliseconds?
    public var loopCount: Int?
    public var tempoPercent: Int
    public var transposeCents: Int
    /// The beat the listener tapped or set on the track (nil: its BPM tag).
    public var beat: TrackBeat?

    public init(loop: PracticeSubject.LoopMilliseconds? = nil, loopCount: Int? = nil, tempoPercent: Int = 100,
                transposeCents: Int = 0, beat: TrackBeat? = nil) {
        self.loop = loop
        self.loopCount = loopCount
        self.tempoPercent = tempoPercent
        self.transposeCents = transposeCents
        self.beat = beat
    }
}

/// Reads and writes the practice tables (`PracticeMigrations`). A path is turned into the track's stable identity
/// inside each transaction, so time and memory follow a moved file once the library has rescanned it.
/// Sendable; any task may call it (GRDB runs the SQL on its own queues).
public struct PracticeStore: Sendable {
    let database: FermataDatabase

    public init(database: FermataDatabase) { self.database = database }

    /// Adds the seconds to their rows and raises the reached tempos, all in one transaction.
    func add(_ rows: [PracticeTally.Key: Double], reached: [PracticeTally.Key: Int] = [:]) async throws {
        try await database.pool.write { db in
            for (key, percent) in reached {
                guard let loop = key.subject.loop else { continue }
                let (subject, identity) = try Self.subject(db, path: key.subject.path)
                try db.execute(sql: """
                    INSERT INTO practice_tempo (day, subject, identity_id, path, loop_start_ms, loop_end_ms, tempo_percent)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (day, subject, loop_start_ms, loop_end_ms)
                    DO UPDATE SET tempo_percent = max(tempo_percent, excluded.tempo_percent), path = excluded.path
                    """, arguments: [key.day, subject, identity, key.subject.path, loop.start, loop.end, percent])
            }
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
            let groups = try PracticeTimeGroupRecord.fetchAll(db, sql: """
                SELECT subject, max(identity_id) AS identity_id, max(path) AS path, loop_start_ms, loop_end_ms,
                    total(seconds) AS seconds
                FROM practice_time WHERE day BETWEEN ? AND ?
                GROUP BY subject, loop_start_ms, loop_end_ms
                """, arguments: [firstDay, lastDay])
            var tracks: [String: PracticeTrackTime] = [:]
            var sectionsBySubject = Memo<[PracticeSection]>()
            let reached = try PracticeTempoRecord.fetchAll(db, sql: """
                SELECT day, subject, loop_start_ms, loop_end_ms, tempo_percent FROM practice_tempo
                WHERE day BETWEEN ? AND ? ORDER BY day
                """, arguments: [firstDay, lastDay])
            for group in groups {
                let subject = group.subject
                if tracks[subject] == nil {
                    tracks[subject] = try Self.describe(db, identity: group.identityId, lastPath: group.path)
                }
                let seconds = group.seconds
                tracks[subject]?.seconds += seconds
                let (start, end) = (group.loopStartMs, group.loopEndMs)
                if start >= 0 && end > start {
                    let section = try sectionsBySubject.cached(subject) { try Self.sections(db, subject: subject) }
                        .first { $0.matches(startMilliseconds: start, endMilliseconds: end) }?.name
                    let days = reached.filter { $0.subject == subject && $0.loopStartMs == start && $0.loopEndMs == end }
                        .map { PracticeTempoDay(day: $0.day, percent: $0.tempoPercent) }
                    tracks[subject]?.loops.append(PracticeLoopTime(startSeconds: Double(start) / 1000,
                                                                   endSeconds: Double(end) / 1000, seconds: seconds,
                                                                   section: section, tempoReached: days))
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
            guard let saved = try PracticeMemoryRecord.fetchOne(db, sql: """
                SELECT loop_start_ms, loop_end_ms, loop_count, tempo_percent, transpose_cents, beats_per_minute,
                    beat_offset_ms
                FROM practice_memory WHERE subject = ?
                """, arguments: [subject]) else { return nil }
            var memory = TrackMemory(loopCount: saved.loopCount, tempoPercent: saved.tempoPercent,
                                     transposeCents: saved.transposeCents,
                                     beat: saved.beatsPerMinute.map { TrackBeat(bpm: $0, offsetSeconds: Double(saved.beatOffsetMs) / 1000) }
                                         .flatMap { $0.problem == nil ? $0 : nil })
            if let start = saved.loopStartMs, let end = saved.loopEndMs, end > start {
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
                    (subject, loop_start_ms, loop_end_ms, loop_count, tempo_percent, transpose_cents, beats_per_minute,
                     beat_offset_ms, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [subject, memory.loop?.start, memory.loop?.end, memory.loopCount,
                                 memory.tempoPercent, memory.transposeCents, memory.beat?.bpm,
                                 Int64(((memory.beat?.offsetSeconds ?? 0) * 1000).rounded()),
                                 Int64(date.timeIntervalSince1970)])
        }
    }

    /// The sections of the track at `path`, in the listener's order.
    public func sections(path: String) async throws -> [PracticeSection] {
        try await database.pool.read { db in try Self.sections(db, subject: Self.subject(db, path: path).0) }
    }

    /// Replaces the sections of the track at `path` (durable when it returns).
    func replaceSections(_ sections: [PracticeSection], path: String) async throws {
        try await database.pool.write { db in
            let (subject, _) = try Self.subject(db, path: path)
            try db.execute(sql: "DELETE FROM practice_section WHERE subject = ?", arguments: [subject])
            for (position, section) in sections.enumerated() {
                try db.execute(sql: """
                    INSERT INTO practice_section (subject, position, name, start_ms, end_ms, passes, tempo_percent,
                        trainer_start, trainer_step, trainer_every, trainer_target, trainer_fallback)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [subject, position, section.name, section.startMilliseconds,
                                     section.endMilliseconds, section.passes, section.tempoPercent,
                                     section.trainer?.startPercent, section.trainer?.stepPercent,
                                     section.trainer?.everyPasses, section.trainer?.ceilingPercent,
                                     section.trainer?.fallsBack == true ? 1 : 0])
            }
        }
    }

    /// A subject's sections; a row a hand edit made unusable is left out.
    static func sections(_ db: Database, subject: String) throws -> [PracticeSection] {
        try PracticeSectionRecord.fetchAll(db, sql: """
            SELECT name, start_ms, end_ms, passes, tempo_percent, trainer_start, trainer_step, trainer_every,
                trainer_target, trainer_fallback
            FROM practice_section WHERE subject = ? ORDER BY position
            """, arguments: [subject]).compactMap { row in
            var trainer: SpeedTrainerPlan?
            if let start = row.trainerStart, let step = row.trainerStep, let every = row.trainerEvery,
               let target = row.trainerTarget {
                trainer = SpeedTrainerPlan(startPercent: start, stepPercent: step, everyPasses: every,
                                           ceilingPercent: target, fallsBack: row.trainerFallback != 0)
            }
            let section = PracticeSection(name: row.name, startMilliseconds: row.startMs, endMilliseconds: row.endMs,
                                          passes: row.passes, tempoPercent: row.tempoPercent, trainer: trainer)
            return section.problem == nil ? section : nil
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
        let track = if let identity {
            try PracticeTrackRecord.fetchOne(db, sql: """
                SELECT path, title, artist FROM track WHERE identity_id = ? ORDER BY path LIMIT 1
                """, arguments: [identity])
        } else {
            try PracticeTrackRecord.fetchOne(
                db, sql: "SELECT path, title, artist FROM track WHERE path = ?", arguments: [lastPath])
        }
        guard let track else { return PracticeTrackTime(file: lastPath, seconds: 0) }
        return PracticeTrackTime(file: track.path, title: track.title, artist: track.artist, seconds: 0)
    }
}

/// One group of `PracticeStore.tracks(from:to:)`'s `practice_time` aggregate: a subject's seconds in one loop region
/// (`-1`/`-1`: no loop), with its identity and the path it was last played under.
private struct PracticeTimeGroupRecord: Decodable, FetchableRecord {
    static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .convertFromSnakeCase }

    var subject: String
    /// `max(identity_id)`: nil for a file the library does not know.
    var identityId: Int64?
    /// `max(path)`.
    var path: String
    var loopStartMs: Int64
    var loopEndMs: Int64
    /// `total(seconds)`.
    var seconds: Double
}

/// A `practice_memory` row as `PracticeStore.memory(path:)` reads it (the loop ends in milliseconds).
private struct PracticeMemoryRecord: Decodable, FetchableRecord {
    static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .convertFromSnakeCase }

    var loopStartMs: Int64?
    var loopEndMs: Int64?
    var loopCount: Int?
    var tempoPercent: Int
    var transposeCents: Int
    var beatsPerMinute: Double?
    var beatOffsetMs: Int64
}

/// Values computed once per key within one read.
private struct Memo<Value> {
    private var values: [String: Value] = [:]

    mutating func cached(_ key: String, _ make: () throws -> Value) rethrows -> Value {
        if let value = values[key] { return value }
        let value = try make()
        values[key] = value
        return value
    }
}

/// A `practice_section` row as `PracticeStore.sections` reads it.
private struct PracticeSectionRecord: Decodable, FetchableRecord {
    static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .convertFromSnakeCase }

    var name: String
    var startMs: Int64
    var endMs: Int64
    var passes: Int?
    var tempoPercent: Int?
    var trainerStart: Int?
    var trainerStep: Int?
    var trainerEvery: Int?
    var trainerTarget: Int?
    var trainerFallback: Int
}

/// A `practice_tempo` row: the tempo reached on a day in a loop region.
private struct PracticeTempoRecord: Decodable, FetchableRecord {
    static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .convertFromSnakeCase }

    var day: String
    var subject: String
    var loopStartMs: Int64
    var loopEndMs: Int64
    var tempoPercent: Int
}

/// The `track` columns `PracticeStore.describe` reads: path and tags.
private struct PracticeTrackRecord: Decodable, FetchableRecord {
    var path: String
    var title: String?
    var artist: String?
}
