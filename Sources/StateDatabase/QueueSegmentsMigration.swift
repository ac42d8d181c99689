import GRDB

/// Moves a saved queue from one row per entry (`queue_entry`, until v4) to runs of entries (`queue_segment`), and
/// leaves a read-only `queue_entry` view with the old columns, so that `sqlite3` over SSH (and the tests that judge the
/// saved queue) still read it one entry per row. The shuffled order moves from per-row keys to
/// `player_state.shuffle_order`.
///
/// Frozen as shipped (v4): the runs are written in the format of that time — each entry a positional JSON array
/// `[id, version, "uri", track gain, track peak, album gain, album peak]` made by SQLite's own `json_array` — with no
/// code shared with the live queue codec, so a later change of that codec cannot change what this step writes
/// (`QueueEntriesKeyedMigration` turns these arrays into today's objects).
enum QueueSegmentsMigration {
    static let runLength = 256

    static func migrate(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE queue_segment (id INTEGER PRIMARY KEY, sort_key INTEGER NOT NULL, entries TEXT NOT NULL);
            ALTER TABLE player_state ADD COLUMN shuffle_order TEXT;
            """)
        let entries = try String.fetchAll(db, sql: """
            SELECT json_array(id, version, uri, rg_track_gain, rg_track_peak, rg_album_gain, rg_album_peak)
            FROM queue_entry ORDER BY sort_key, id
            """)
        var run = 0
        while run * runLength < entries.count {
            let slice = entries[(run * runLength)..<min(entries.count, (run + 1) * runLength)]
            try db.execute(sql: "INSERT INTO queue_segment (id, sort_key, entries) VALUES (?, ?, ?)",
                           arguments: [run + 1, Int64(run + 1) << 16, "[" + slice.joined(separator: ",") + "]"])
            run += 1
        }
        let shuffled = try Bool.fetchOne(db, sql: "SELECT shuffled FROM player_state WHERE id = 1") ?? false
        if shuffled {
            let order = try Int64.fetchAll(db, sql: """
                SELECT id FROM queue_entry WHERE shuffle_key IS NOT NULL ORDER BY shuffle_key, id
                """)
            try db.execute(sql: "UPDATE player_state SET shuffle_order = ? WHERE id = 1",
                           arguments: ["[" + order.map(String.init).joined(separator: ",") + "]"])
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
