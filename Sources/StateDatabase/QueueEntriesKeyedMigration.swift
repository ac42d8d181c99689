import GRDB

/// v11: the saved queue's entries become JSON objects with named members (`QueueSegmentCodec`) instead of positional
/// arrays whose eighth slot (the priority) was there "only when it is not 0 or a ninth follows" and whose ninth was
/// the span `[start, end, passes, tempo, "section"]`. Each entry is rebuilt by SQLite's JSON functions — `json_patch`
/// drops the members whose value is null, so a missing gain, a priority of 0 or a span without an end leaves its name
/// out, as the codec writes — and the runs are put together in entry order here. The `queue_entry` view reads the
/// named members and shows the priority and the span too.
///
/// Frozen as shipped: SQL only, no code shared with the live codec.
enum QueueEntriesKeyedMigration {
    static func migrate(_ db: Database) throws {
        let runs = try Int64.fetchAll(db, sql: "SELECT id FROM queue_segment")
        for run in runs {
            let entries = try String.fetchAll(db, sql: """
                SELECT json_patch(
                    json_object('id', json_extract(e.value, '$[0]'), 'version', json_extract(e.value, '$[1]'),
                                'uri', json_extract(e.value, '$[2]')),
                    json_object('track_gain', json_extract(e.value, '$[3]'),
                                'track_peak', json_extract(e.value, '$[4]'),
                                'album_gain', json_extract(e.value, '$[5]'),
                                'album_peak', json_extract(e.value, '$[6]'),
                                'priority', nullif(json_extract(e.value, '$[7]'), 0),
                                'span', json(CASE WHEN json_type(e.value, '$[8]') = 'array' THEN json_patch(
                                    json_object('start_ms', json_extract(e.value, '$[8][0]')),
                                    json_object('end_ms', json_extract(e.value, '$[8][1]'),
                                                'passes', json_extract(e.value, '$[8][2]'),
                                                'tempo', json_extract(e.value, '$[8][3]'),
                                                'section', json_extract(e.value, '$[8][4]'))) END)))
                FROM queue_segment s, json_each(s.entries) e
                WHERE s.id = ?
                ORDER BY e.key
                """, arguments: [run])
            try db.execute(sql: "UPDATE queue_segment SET entries = ? WHERE id = ?",
                           arguments: ["[" + entries.joined(separator: ",") + "]", run])
        }
        try db.execute(sql: """
            DROP VIEW queue_entry;
            CREATE VIEW queue_entry AS
                SELECT json_extract(e.value, '$.id') AS id,
                       s.sort_key * 4096 + e.key AS sort_key,
                       (SELECT o.key FROM player_state p, json_each(p.shuffle_order) o
                        WHERE p.id = 1 AND o.value = json_extract(e.value, '$.id')) AS shuffle_key,
                       json_extract(e.value, '$.uri') AS uri,
                       json_extract(e.value, '$.version') AS version,
                       json_extract(e.value, '$.track_gain') AS rg_track_gain,
                       json_extract(e.value, '$.track_peak') AS rg_track_peak,
                       json_extract(e.value, '$.album_gain') AS rg_album_gain,
                       json_extract(e.value, '$.album_peak') AS rg_album_peak,
                       coalesce(json_extract(e.value, '$.priority'), 0) AS priority,
                       json_extract(e.value, '$.span') AS span
                FROM queue_segment s, json_each(s.entries) e;
            """)
    }
}
