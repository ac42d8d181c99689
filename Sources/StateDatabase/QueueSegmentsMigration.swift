import FermataCore
import GRDB

/// Moves a saved queue from one row per entry (`queue_entry`, until v4) to runs of entries (`queue_segment`, see
/// `QueueSegments`), and leaves a read-only `queue_entry` view with the old columns, so that `sqlite3` over SSH (and
/// the tests that judge the saved queue) still read it one entry per row. The shuffled order moves from per-row keys to
/// `player_state.shuffle_order`.
enum QueueSegmentsMigration {
    static func migrate(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE queue_segment (id INTEGER PRIMARY KEY, sort_key INTEGER NOT NULL, entries TEXT NOT NULL);
            ALTER TABLE player_state ADD COLUMN shuffle_order TEXT;
            """)
        let rows = try Row.fetchAll(db, sql: "SELECT * FROM queue_entry ORDER BY sort_key")
        let entries = rows.map { row in
            QueueEntry(id: row["id"], uri: row["uri"],
                       replayGain: ReplayGainInfo(trackGain: row["rg_track_gain"], trackPeak: row["rg_track_peak"],
                                                  albumGain: row["rg_album_gain"], albumPeak: row["rg_album_peak"]),
                       version: row["version"])
        }
        var segments = QueueSegments()
        try QueueRows(change: segments.update(to: entries), shuffle: .none).apply(db)
        let shuffled = try Bool.fetchOne(db, sql: "SELECT shuffled FROM player_state WHERE id = 1") ?? false
        if shuffled {
            let order = rows.compactMap { row -> (key: Int64, id: EntryID)? in
                (row["shuffle_key"] as Int64?).map { ($0, row["id"]) }
            }.sorted { ($0.key, $0.id) < ($1.key, $1.id) }.map(\.id)
            try db.execute(sql: "UPDATE player_state SET shuffle_order = ? WHERE id = 1",
                           arguments: [QueueSegmentCodec.encode(ids: order)])
        }
        try db.execute(sql: """
            DROP TABLE queue_entry;
            CREATE VIEW queue_entry AS
                SELECT json_extract(e.value, '$[0]') AS id,
                       s.sort_key * 4096 + e.key AS sort_key,
                       (SELECT o.key FROM player_state p, json_each(p.shuffle_order) o
                        WHERE p.id = 1 AND o.value = json_extract(e.value, '$[0]')) AS shuffle_key,
                       json_extract(e.value, '$[2]') AS uri,
                       json_extract(e.value, '$[1]') AS version,
                       json_extract(e.value, '$[3]') AS rg_track_gain,
                       json_extract(e.value, '$[4]') AS rg_track_peak,
                       json_extract(e.value, '$[5]') AS rg_album_gain,
                       json_extract(e.value, '$[6]') AS rg_album_peak
                FROM queue_segment s, json_each(s.entries) e;
            """)
    }
}
