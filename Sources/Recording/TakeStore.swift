import DatabaseFile
import Foundation
import GRDB

/// A committed take as the index keeps it.
public struct TakeRecord: Sendable, Hashable {
    public var id: Int64
    /// The track's queue path and the loop region (a section's ends) it was recorded over.
    public var path: String
    public var loopStartMilliseconds: Int64
    public var loopEndMilliseconds: Int64
    public var pass: Int
    public var tempoPercent: Int
    public var sampleRate: Int
    public var channels: Int
    public var frames: Int64
    public var bytes: Int64
    /// The round-trip latency compensated, in frames.
    public var latencyFrames: Int
    public var recordedAt: Date

    public init(id: Int64, path: String, loopStartMilliseconds: Int64, loopEndMilliseconds: Int64, pass: Int,
                tempoPercent: Int, sampleRate: Int, channels: Int, frames: Int64, bytes: Int64, latencyFrames: Int,
                recordedAt: Date) {
        self.id = id
        self.path = path
        self.loopStartMilliseconds = loopStartMilliseconds
        self.loopEndMilliseconds = loopEndMilliseconds
        self.pass = pass
        self.tempoPercent = tempoPercent
        self.sampleRate = sampleRate
        self.channels = channels
        self.frames = frames
        self.bytes = bytes
        self.latencyFrames = latencyFrames
        self.recordedAt = recordedAt
    }

    /// Its length in seconds.
    public var seconds: Double { sampleRate > 0 ? Double(frames) / Double(sampleRate) : 0 }
}

/// The takes index (`take`, migration `v14-takes`) and the takes folder kept together: a take's file is committed
/// before its row is written, a row is deleted before its file, and the space budget deletes the oldest takes first.
/// Sendable; any task may call it (GRDB runs the SQL on its own queues; the file calls are short).
public struct TakeStore: Sendable {
    let database: FermataDatabase
    public let folder: TakeFolder

    public init(database: FermataDatabase, folder: TakeFolder) {
        self.database = database
        self.folder = folder
    }

    /// The next take's id (above every row and every file, so a file left without a row is never overwritten).
    public func nextID() async throws -> Int64 {
        let row = try await database.pool.read { db in try Int64.fetchOne(db, sql: "SELECT max(id) FROM take") } ?? 0
        return max(row, folder.takeIDs().last ?? 0) + 1
    }

    /// Indexes a committed take (durable when it returns: `synchronous=FULL`, as the database's NORMAL would leave the
    /// row to the next checkpoint, and a power cut before it made `tidy` delete the whole file as nobody's — in the
    /// kernel lab every take listed seconds before a cut was gone after it).
    public func add(_ take: TakeRecord) async throws {
        try await durably { db in
            try db.execute(sql: """
                INSERT INTO take (id, subject, path, loop_start_ms, loop_end_ms, pass, tempo_percent, sample_rate,
                    channels, frames, bytes, latency_frames, recorded_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [take.id, take.path, take.path, take.loopStartMilliseconds, take.loopEndMilliseconds,
                                 take.pass, take.tempoPercent, take.sampleRate, take.channels, take.frames, take.bytes,
                                 take.latencyFrames, Int64(take.recordedAt.timeIntervalSince1970)])
        }
    }

    /// The takes of `path` (all when nil), newest first.
    public func takes(path: String? = nil) async throws -> [TakeRecord] {
        try await database.pool.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT * FROM take WHERE ?1 IS NULL OR path = ?1 ORDER BY recorded_at DESC, id DESC
                """, arguments: [path])
            return rows.map { row in
                TakeRecord(id: row["id"], path: row["path"], loopStartMilliseconds: row["loop_start_ms"],
                           loopEndMilliseconds: row["loop_end_ms"], pass: row["pass"], tempoPercent: row["tempo_percent"],
                           sampleRate: row["sample_rate"], channels: row["channels"], frames: row["frames"],
                           bytes: row["bytes"], latencyFrames: row["latency_frames"],
                           recordedAt: Date(timeIntervalSince1970: TimeInterval(row["recorded_at"] as Int64)))
            }
        }
    }

    /// Deletes take `id`: its row, then its file. False when there is no such take.
    @discardableResult
    public func delete(_ id: Int64) async throws -> Bool {
        let deleted = try await durably { db in
            try db.execute(sql: "DELETE FROM take WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
        if deleted { try folder.delete(id) }
        return deleted
    }

    /// Deletes the oldest takes until they fit in `budgetBytes`; returns the ids deleted.
    public func keepWithin(budgetBytes: Int64) async throws -> [Int64] {
        var all = try await takes().reversed().map { $0 }  // oldest first
        var total = all.reduce(Int64(0)) { $0 + $1.bytes }
        var deleted: [Int64] = []
        while total > budgetBytes, !all.isEmpty {
            let oldest = all.removeFirst()
            try await delete(oldest.id)
            total -= oldest.bytes
            deleted.append(oldest.id)
        }
        return deleted
    }

    /// One transaction committed with `synchronous=FULL` (the WAL synced before it returns), as `AlarmStorage` does.
    private func durably<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await database.pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            defer { try? db.execute(sql: "PRAGMA synchronous = NORMAL") }
            var result: T?
            try db.inTransaction {
                result = try body(db)
                return .commit
            }
            guard let result else { throw CocoaError(.coderInvalidValue) }
            return result
        }
    }

    /// At start: removes the leftovers of interrupted takes, and files no row names (a take committed just before a
    /// power cut, before its row: it is whole, but nothing says what it was recorded over).
    public func tidy() async throws {
        folder.removeLeftovers()
        let known = Set(try await takes().map(\.id))
        for id in folder.takeIDs() where !known.contains(id) { try folder.delete(id) }
    }
}
