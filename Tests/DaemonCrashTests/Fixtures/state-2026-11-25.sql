-- State database written by .build-static/release/fermatad, migrations: v1-library, v1-custom-metadata, v1-search, v1-queue-state, v2-output-state, v2-practice, v3-position-sequence, v4-queue-segments
-- Made by Tests/Tools/make-release-state-fixture.sh: three 20 s songs queued, paused at 7.5 s into the second.
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
INSERT INTO grdb_migrations VALUES('v1-library');
INSERT INTO grdb_migrations VALUES('v1-custom-metadata');
INSERT INTO grdb_migrations VALUES('v1-search');
INSERT INTO grdb_migrations VALUES('v1-queue-state');
INSERT INTO grdb_migrations VALUES('v2-output-state');
INSERT INTO grdb_migrations VALUES('v2-practice');
INSERT INTO grdb_migrations VALUES('v3-position-sequence');
INSERT INTO grdb_migrations VALUES('v4-queue-segments');
CREATE TABLE directory (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    parent_id INTEGER REFERENCES directory(id) ON DELETE CASCADE
);
INSERT INTO directory VALUES(1,'',NULL);
INSERT INTO directory VALUES(2,'Set',1);
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
);
INSERT INTO track VALUES(1,'Set/one.wav',NULL,2,1,'wav:17d7c9fa4f5a7ea2:882000',882044,1795583615545547964,'wav',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,20.0,22050,1,16,NULL,NULL,NULL,NULL,NULL,NULL,1795583615);
INSERT INTO track VALUES(2,'Set/three.wav',NULL,2,2,'wav:17d7c9fa4f5a7ea2:882000',882044,1795583615546368086,'wav',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,20.0,22050,1,16,NULL,NULL,NULL,NULL,NULL,NULL,1795583615);
INSERT INTO track VALUES(3,'Set/two.wav',NULL,2,3,'wav:17d7c9fa4f5a7ea2:882000',882044,1795583615546153607,'wav',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,20.0,22050,1,16,NULL,NULL,NULL,NULL,NULL,NULL,1795583615);
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
INSERT INTO scan_state VALUES(1,1,4,3,1795583615);
CREATE TABLE track_metadata (
    identity_id INTEGER PRIMARY KEY,
    play_count INTEGER NOT NULL DEFAULT 0,
    last_played INTEGER,
    rating INTEGER,
    practice_seconds REAL NOT NULL DEFAULT 0,
    preferred_tempo REAL
);
CREATE TABLE loop_region (
    id INTEGER PRIMARY KEY,
    identity_id INTEGER NOT NULL,
    name TEXT NOT NULL,
    start_frame INTEGER NOT NULL,
    end_frame INTEGER NOT NULL CHECK (end_frame > start_frame),
    repeat_count INTEGER,
    created_at INTEGER NOT NULL
);
CREATE TABLE sticker (
    identity_id INTEGER NOT NULL,
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (identity_id, name)
) WITHOUT ROWID;
PRAGMA writable_schema=ON;
INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql)VALUES('table','track_fts','track_fts',0,'CREATE VIRTUAL TABLE track_fts USING fts5(
    title, artist, album, path,
    content=''track'', content_rowid=''id'', tokenize=''unicode61 remove_diacritics 2'',
    detail=none, columnsize=0
)');
CREATE TABLE IF NOT EXISTS 'track_fts_data'(id INTEGER PRIMARY KEY, block BLOB);
INSERT INTO track_fts_data VALUES(1,X'0300000009');
INSERT INTO track_fts_data VALUES(10,X'000000000101010001010101');
INSERT INTO track_fts_data VALUES(137438953473,X'0000002704306f6e6501010373657401010101057468726565020202776f0301037761760101010406080805');
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
, position_seq INTEGER NOT NULL DEFAULT 0, shuffle_order TEXT);
INSERT INTO player_state VALUES(1,'paused',2,165375,22050,100,'off',0,0,'off',0,NULL,NULL,NULL,NULL,4,4,10,NULL);
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
INSERT INTO practice_time VALUES('2026-11-25','identity:3',3,'Set/two.wav',-1,-1,0.0039231777191162109375);
CREATE TABLE practice_memory (
    subject TEXT NOT NULL PRIMARY KEY,
    loop_start_ms INTEGER,
    loop_end_ms INTEGER,
    loop_count INTEGER,
    tempo_percent INTEGER NOT NULL DEFAULT 100,
    updated_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE queue_segment (id INTEGER PRIMARY KEY, sort_key INTEGER NOT NULL, entries TEXT NOT NULL);
INSERT INTO queue_segment VALUES(3,1048576,'[[1,2,"Set/one.wav",null,null,null,null],[2,3,"Set/two.wav",null,null,null,null],[3,4,"Set/three.wav",null,null,null,null]]');
CREATE INDEX directory_parent ON directory(parent_id);
CREATE INDEX missing_identity_fingerprint ON missing_identity(fingerprint);
CREATE INDEX track_directory ON track(directory_id);
CREATE INDEX track_identity_ref ON track(identity_id);
CREATE INDEX loop_region_identity ON loop_region(identity_id);
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
PRAGMA writable_schema=OFF;
COMMIT;
