-- The state database of Fermata 1.0.0 (1.0.0), migrations: v1-library, v1-custom-metadata, v1-search, v2-drop-unused-metadata, v3-musicbrainz-ids, v1-queue-state, v2-output-state, v2-practice, v3-position-sequence, v4-queue-segments, v5-practice-keeps-identities, v6-player-tempo, v7-cards, v8-player-key-and-beat, v9-practice-key-and-beat, v10-practice-sections, v11-queue-entries-keyed
-- Made by Tests/Tools/make-release-fixture.sh; answers.txt has what that daemon answered before it stopped.
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
INSERT INTO grdb_migrations VALUES('v1-library');
INSERT INTO grdb_migrations VALUES('v1-custom-metadata');
INSERT INTO grdb_migrations VALUES('v1-search');
INSERT INTO grdb_migrations VALUES('v2-drop-unused-metadata');
INSERT INTO grdb_migrations VALUES('v3-musicbrainz-ids');
INSERT INTO grdb_migrations VALUES('v1-queue-state');
INSERT INTO grdb_migrations VALUES('v2-output-state');
INSERT INTO grdb_migrations VALUES('v2-practice');
INSERT INTO grdb_migrations VALUES('v3-position-sequence');
INSERT INTO grdb_migrations VALUES('v4-queue-segments');
INSERT INTO grdb_migrations VALUES('v5-practice-keeps-identities');
INSERT INTO grdb_migrations VALUES('v6-player-tempo');
INSERT INTO grdb_migrations VALUES('v7-cards');
INSERT INTO grdb_migrations VALUES('v8-player-key-and-beat');
INSERT INTO grdb_migrations VALUES('v9-practice-key-and-beat');
INSERT INTO grdb_migrations VALUES('v10-practice-sections');
INSERT INTO grdb_migrations VALUES('v11-queue-entries-keyed');
CREATE TABLE directory (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    parent_id INTEGER REFERENCES directory(id) ON DELETE CASCADE
);
INSERT INTO directory VALUES(1,'',NULL);
INSERT INTO directory VALUES(2,'Quartet',1);
INSERT INTO directory VALUES(3,'Quartet/Practice Pieces',2);
CREATE TABLE missing_identity (
    id INTEGER PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    last_path TEXT NOT NULL,
    missing_since INTEGER NOT NULL
);
CREATE TABLE track (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    path_bytes BLOB,
    directory_id INTEGER NOT NULL REFERENCES directory(id) ON DELETE CASCADE,
    identity_id INTEGER NOT NULL,
    fingerprint TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime INTEGER NOT NULL,
    format TEXT NOT NULL,
    title TEXT,
    artist TEXT,
    album_artist TEXT,
    album TEXT,
    track_number INTEGER,
    disc_number INTEGER,
    date TEXT,
    genre TEXT,
    composer TEXT,
    bpm REAL,
    duration REAL,
    sample_rate INTEGER NOT NULL,
    channels INTEGER NOT NULL,
    bits_per_sample INTEGER NOT NULL,
    rg_track_gain REAL,
    rg_track_peak REAL,
    rg_album_gain REAL,
    rg_album_peak REAL,
    picture_hash TEXT,
    picture_bytes INTEGER,
    added_at INTEGER NOT NULL
, mb_track_id TEXT, mb_album_id TEXT, mb_artist_id TEXT, mb_album_artist_id TEXT, mb_release_track_id TEXT);
INSERT INTO track VALUES(1,'Quartet/Practice Pieces/01 One.flac',NULL,3,1,'flac-md5:9b1be87c6b579fde2341515f4d82c008:441000',9601,1795916954000000000,'flac','Piece One','Quartet',NULL,'Practice Pieces',1,NULL,NULL,NULL,NULL,96.0,20.0,22050,1,16,NULL,NULL,NULL,NULL,NULL,NULL,1795916954,NULL,NULL,NULL,NULL,NULL);
INSERT INTO track VALUES(2,'Quartet/Practice Pieces/02 Two.flac',NULL,3,2,'flac-md5:9b1be87c6b579fde2341515f4d82c008:441000',9591,1795916954000000000,'flac','Piece Two','Quartet',NULL,'Practice Pieces',2,NULL,NULL,NULL,NULL,NULL,20.0,22050,1,16,NULL,NULL,NULL,NULL,NULL,NULL,1795916954,NULL,NULL,NULL,NULL,NULL);
INSERT INTO track VALUES(3,'Quartet/Practice Pieces/03 Three.flac',NULL,3,3,'flac-md5:9b1be87c6b579fde2341515f4d82c008:441000',9593,1795916954000000000,'flac','Piece Three','Quartet',NULL,'Practice Pieces',3,NULL,NULL,NULL,NULL,NULL,20.0,22050,1,16,NULL,NULL,NULL,NULL,NULL,NULL,1795916954,NULL,NULL,NULL,NULL,NULL);
CREATE TABLE scan_issue (
    path TEXT NOT NULL,
    kind TEXT NOT NULL,
    reason TEXT NOT NULL,
    path_bytes BLOB,
    size INTEGER,
    mtime INTEGER,
    indexed INTEGER NOT NULL,
    scan INTEGER NOT NULL,
    PRIMARY KEY (path, kind)
);
CREATE TABLE scan_state (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    generation INTEGER NOT NULL,
    next_identity INTEGER NOT NULL,
    matched_through INTEGER NOT NULL DEFAULT 0,
    finished_at INTEGER
);
INSERT INTO scan_state VALUES(1,1,4,3,1795916954);
CREATE TABLE sticker (
    identity_id INTEGER NOT NULL,
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (identity_id, name)
) WITHOUT ROWID;
INSERT INTO sticker VALUES(2,'rating','5');
PRAGMA writable_schema=ON;
INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql)VALUES('table','track_fts','track_fts',0,'CREATE VIRTUAL TABLE track_fts USING fts5(
    title, artist, album, path,
    content=''track'', content_rowid=''id'', tokenize=''unicode61 remove_diacritics 2'',
    detail=none, columnsize=0
)');
CREATE TABLE IF NOT EXISTS 'track_fts_data'(id INTEGER PRIMARY KEY, block BLOB);
INSERT INTO track_fts_data VALUES(1,X'0306030612');
INSERT INTO track_fts_data VALUES(10,X'000000000101010001010101');
INSERT INTO track_fts_data VALUES(137438953473,X'00000055033030310102013202020133030104666c616301010101036f6e65010105706965636501010106017301010102077261637469636501010101077175617274657401010101057468726565030202776f020405040409060a060c0c08');
CREATE TABLE IF NOT EXISTS 'track_fts_idx'(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID;
INSERT INTO track_fts_idx VALUES(1,X'',2);
CREATE TABLE IF NOT EXISTS 'track_fts_config'(k PRIMARY KEY, v) WITHOUT ROWID;
INSERT INTO track_fts_config VALUES('version',4);
CREATE TABLE player_state (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    transport TEXT NOT NULL DEFAULT 'stopped',
    current_entry INTEGER,
    position_frames INTEGER NOT NULL DEFAULT 0,
    sample_rate INTEGER NOT NULL DEFAULT 0,
    volume INTEGER NOT NULL DEFAULT 100,
    repeat_mode TEXT NOT NULL DEFAULT 'off',
    single INTEGER NOT NULL DEFAULT 0,
    consume INTEGER NOT NULL DEFAULT 0,
    replay_gain TEXT NOT NULL DEFAULT 'off',
    shuffled INTEGER NOT NULL DEFAULT 0,
    loop_entry INTEGER, loop_start INTEGER, loop_end INTEGER, loop_count INTEGER,
    queue_version INTEGER NOT NULL DEFAULT 1,
    next_entry_id INTEGER NOT NULL DEFAULT 1
, position_seq INTEGER NOT NULL DEFAULT 0, shuffle_order TEXT, tempo_percent INTEGER NOT NULL DEFAULT 100, transpose_cents INTEGER NOT NULL DEFAULT 0, beats_per_minute REAL, beat_offset_ms INTEGER NOT NULL DEFAULT 0, metronome_beats INTEGER, metronome_level REAL NOT NULL DEFAULT 1);
INSERT INTO player_state VALUES(1,'paused',1,165479,22050,37,'queue',0,0,'off',0,1,88200,176400,3,6,5,17,NULL,90,200,96.0,250,3,0.5);
CREATE TABLE output_state (name TEXT PRIMARY KEY, enabled INTEGER NOT NULL);
CREATE TABLE practice_time (
    day TEXT NOT NULL,
    subject TEXT NOT NULL,
    identity_id INTEGER,
    path TEXT NOT NULL,
    loop_start_ms INTEGER NOT NULL DEFAULT -1,
    loop_end_ms INTEGER NOT NULL DEFAULT -1,
    seconds REAL NOT NULL,
    PRIMARY KEY (day, subject, loop_start_ms, loop_end_ms)
) WITHOUT ROWID;
INSERT INTO practice_time VALUES('2026-11-29','identity:1',1,'Quartet/Practice Pieces/01 One.flac',-1,-1,0.021529912948608398437);
INSERT INTO practice_time VALUES('2026-11-29','identity:1',1,'Quartet/Practice Pieces/01 One.flac',4000,8000,3.0066319704055786132);
CREATE TABLE practice_memory (
    subject TEXT NOT NULL PRIMARY KEY,
    loop_start_ms INTEGER,
    loop_end_ms INTEGER,
    loop_count INTEGER,
    tempo_percent INTEGER NOT NULL DEFAULT 100,
    updated_at INTEGER NOT NULL
, transpose_cents INTEGER NOT NULL DEFAULT 0, beats_per_minute REAL, beat_offset_ms INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
INSERT INTO practice_memory VALUES('identity:1',4000,8000,3,90,1795916954,200,96.0,250);
CREATE TABLE queue_segment (id INTEGER PRIMARY KEY, sort_key INTEGER NOT NULL, entries TEXT NOT NULL);
INSERT INTO queue_segment VALUES(5,1048576,'[{"id":1,"version":2,"uri":"Quartet/Practice Pieces/01 One.flac"},{"id":2,"version":6,"uri":"Quartet/Practice Pieces/02 Two.flac","priority":7},{"id":3,"version":4,"uri":"Quartet/Practice Pieces/03 Three.flac"},{"id":4,"version":5,"uri":"Quartet/Practice Pieces/01 One.flac","span":{"start_ms":1000,"end_ms":3000,"passes":2,"tempo":80,"section":"verse"}}]');
CREATE TABLE card (
    id TEXT PRIMARY KEY NOT NULL,
    target TEXT NOT NULL,
    volume_max INTEGER CHECK (volume_max BETWEEN 0 AND 100),
    assigned_at INTEGER NOT NULL
);
INSERT INTO card VALUES('0000001234','playlist:set',40,1795916954);
CREATE TABLE card_active (
    one INTEGER PRIMARY KEY CHECK (one = 1),
    id TEXT NOT NULL
);
CREATE TABLE practice_section (
    subject TEXT NOT NULL,
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    start_ms INTEGER NOT NULL,
    end_ms INTEGER NOT NULL,
    passes INTEGER,
    tempo_percent INTEGER,
    PRIMARY KEY (subject, position)
) WITHOUT ROWID;
INSERT INTO practice_section VALUES('identity:1',0,'verse',1000,3000,2,80);
INSERT INTO practice_section VALUES('identity:1',1,'chorus',5000,9000,NULL,NULL);
CREATE INDEX directory_parent ON directory(parent_id);
CREATE INDEX missing_identity_fingerprint ON missing_identity(fingerprint);
CREATE INDEX track_directory ON track(directory_id);
CREATE INDEX track_identity_ref ON track(identity_id);
CREATE INDEX practice_time_identity ON practice_time(identity_id);
CREATE TRIGGER practice_keeps_missing_identity BEFORE DELETE ON missing_identity
WHEN NOT EXISTS (SELECT 1 FROM track WHERE identity_id = OLD.id)
    AND (EXISTS (SELECT 1 FROM practice_memory WHERE subject = 'identity:' || OLD.id)
         OR EXISTS (SELECT 1 FROM practice_section WHERE subject = 'identity:' || OLD.id)
         OR EXISTS (SELECT 1 FROM practice_time WHERE identity_id = OLD.id))
BEGIN SELECT RAISE(IGNORE); END;
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
PRAGMA writable_schema=OFF;
COMMIT;
