import GRDB

/// Keeps the FTS5 table `track_fts` in step with `track`. Every write to a track's title, artist, album or path goes
/// through here, inside the same transaction: FTS5 external-content tables must be told the old values to forget.
/// (No triggers: under a row trigger FTS5 flushes its pending terms at every statement, four times slower.)
///
/// Stateless; called inside GRDB write blocks by the scan thread.
enum SearchIndex {
    /// Indexes every track whose id is at least `firstID` (the rows a batch just inserted).
    static func add(from firstID: Int64, _ db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO track_fts (rowid, title, artist, album, path)
            SELECT id, title, artist, album, path FROM track WHERE id >= ?
            """).execute(arguments: [firstID])
    }

    /// Indexes one track.
    static func add(_ trackID: Int64, _ db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO track_fts (rowid, title, artist, album, path)
            SELECT id, title, artist, album, path FROM track WHERE id = ?
            """).execute(arguments: [trackID])
    }

    /// Forgets one track (call before its row changes or goes).
    static func remove(_ trackID: Int64, _ db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO track_fts (track_fts, rowid, title, artist, album, path)
            SELECT 'delete', id, title, artist, album, path FROM track WHERE id = ?
            """).execute(arguments: [trackID])
    }
}
