import Decoders
import Foundation
import GRDB
import GRDBSQLite

/// What the database knew before this scan: every track and every rejected file with its size and modification time,
/// found by a 64-bit hash of the raw relative path (so an unchanged file costs no string and no allocation), and a
/// "seen" flag the walk sets.
///
/// Loaded by the scan thread, then shared by the walking threads: everything but the seen flags is fixed once
/// loaded, and the flags are a `SeenFlags` (any thread may mark one; the scan thread reads them after joining the
/// walkers).
final class KnownFiles: Sendable {
    /// One file known before the scan.
    struct Entry: Sendable {
        /// Track row id, or the `scan_issue` rowid of a rejected file.
        var rowID: Int64
        var size: Int64
        var modified: Int64
        var isRejected: Bool
    }

    let entries: [Entry]
    /// Known tracks (not counting rejected files).
    let trackCount: Int
    private let seen: SeenFlags
    /// Path hash → entry index; -1 when two known paths share the hash (then `collided` decides).
    private let index: PathHashIndex
    private let collided: [[UInt8]: Int32]

    private init(entries: [Entry], trackCount: Int, index: PathHashIndex, collided: [[UInt8]: Int32]) {
        self.entries = entries
        self.trackCount = trackCount
        self.index = index
        self.collided = collided
        seen = SeenFlags(count: entries.count)
    }

    /// Tracks and rejected files whose size and mtime were recorded (transient issues are not: they are retried).
    /// `expected`: about how many rows there are (the index is sized for them up front). `scope`: the directory a
    /// scan of part of the library walks (empty: all of it); the files outside it start seen, so the scan's end
    /// does not take them for gone.
    static func load(_ db: Database, expected: Int = 0, scope: [UInt8] = []) throws -> KnownFiles {
        var outside: [Int] = []
        var entries: [Entry] = []
        var index = PathHashIndex(expected: expected)
        var collided: [[UInt8]: Int32] = [:]
        var trackCount = 0
        entries.reserveCapacity(expected)
        let queries = [
            "SELECT id, COALESCE(path_bytes, CAST(path AS BLOB)), size, mtime, 0 FROM track",
            """
            SELECT rowid, COALESCE(path_bytes, CAST(path AS BLOB)), size, mtime, 1 FROM scan_issue
            WHERE indexed = 0 AND size IS NOT NULL AND kind != 'vanished'
            """,
        ]
        var collisions = Set<UInt64>()
        for sql in queries {
            // SQLite's C API directly: this runs over every known file before each scan.
            let prepared = try db.makeStatement(sql: sql)
            defer { withExtendedLifetime(prepared) {} }
            let statement = prepared.sqliteStatement
            while true {
                let code = sqlite3_step(statement)
                guard code == SQLITE_ROW else {
                    guard code == SQLITE_DONE else { throw DatabaseError(resultCode: ResultCode(rawValue: code)) }
                    break
                }
                let bytes = UnsafeRawBufferPointer(start: sqlite3_column_blob(statement, 1),
                                                   count: Int(sqlite3_column_bytes(statement, 1)))
                let hash = Self.hash(bytes)
                let entry = Entry(rowID: sqlite3_column_int64(statement, 0), size: sqlite3_column_int64(statement, 2),
                                  modified: sqlite3_column_int64(statement, 3),
                                  isRejected: sqlite3_column_int64(statement, 4) != 0)
                if index.updateValue(Int32(entries.count), forKey: hash) != nil { collisions.insert(hash) }
                if !scope.isEmpty, !Self.isWithin(bytes, scope) { outside.append(entries.count) }
                entries.append(entry)
                if !entry.isRejected { trackCount += 1 }
            }
        }
        if !collisions.isEmpty { try resolve(collisions, db, queries, index: &index, collided: &collided) }
        let known = KnownFiles(entries: entries, trackCount: trackCount, index: index, collided: collided)
        for entry in outside { known.markSeen(entry) }
        return known
    }

    /// Whether the raw relative `path` is `directory` or below it.
    private static func isWithin(_ path: UnsafeRawBufferPointer, _ directory: [UInt8]) -> Bool {
        path.starts(with: directory)
            && (path.count == directory.count || path[directory.count] == UInt8(ascii: "/"))
    }

    /// Entry index of the file at `path` (raw relative bytes), if known.
    func lookup(_ path: [UInt8]) -> Int? {
        guard let found = index[path.withUnsafeBytes { Self.hash($0) }] else { return nil }
        if found >= 0 { return Int(found) }
        return collided[path].map(Int.init)
    }

    func markSeen(_ entry: Int) {
        seen.mark(entry)
    }

    func isSeen(_ entry: Int) -> Bool {
        seen.isMarked(entry)
    }

    /// Paths sharing a hash are looked up by their full bytes instead (a second pass, only when it happens).
    private static func resolve(_ collisions: Set<UInt64>, _ db: Database, _ queries: [String],
                                index: inout PathHashIndex, collided: inout [[UInt8]: Int32]) throws {
        var position: Int32 = 0
        for sql in queries {
            let rows = try Row.fetchCursor(db, sql: sql)
            while let row = try rows.next() {
                let bytes: [UInt8] = try row.withUnsafeData(atIndex: 1) { $0.map { [UInt8]($0) } ?? [] }
                let hash = bytes.withUnsafeBytes { Self.hash($0) }
                if collisions.contains(hash) {
                    index.updateValue(-1, forKey: hash)
                    collided[bytes] = position
                }
                position += 1
            }
        }
    }

    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hasher = ContentHasher()
        hasher.update(bytes)
        return hasher.finalize()
    }
}
