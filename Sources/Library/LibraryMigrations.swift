import DatabaseFile
import GRDB

extension DatabaseSchema {
    /// The library's part of the state database file: its migrations (first: the state's are appended after them)
    /// and the SQL functions its searches call, on every connection.
    public static var library: DatabaseSchema {
        var schema = DatabaseSchema()
        LibraryMigrations.register(in: &schema.migrations)
        schema.setUpEachConnection { $0.add(function: SearchFunctions.fold) }
        return schema
    }
}

/// The library's migrations. Shipped migrations are never edited: a schema change is a new, newly named migration
/// appended to `register(in:)` (a test compares each shipped migration's resulting schema with a recorded hash).
///
/// Stateless; used once per process while the database opens.
public enum LibraryMigrations {
    /// The library's migration names, in order. Other modules append theirs after these.
    public static let names = ["v1-library", "v1-custom-metadata", "v1-search", "v2-drop-unused-metadata",
                               "v3-musicbrainz-ids"]

    /// Appends the library's migrations to `migrations` (first; others register theirs afterwards).
    static func register(in migrations: inout SchemaMigrations) {
        migrations.register("v1-library") { db in try db.execute(sql: v1Library) }
        migrations.register("v1-custom-metadata") { db in try db.execute(sql: v1CustomMetadata) }
        migrations.register("v1-search") { db in try db.execute(sql: v1Search) }
        migrations.register("v2-drop-unused-metadata") { db in try db.execute(sql: v2DropUnusedMetadata) }
        migrations.register("v3-musicbrainz-ids") { db in try db.execute(sql: v3MusicBrainzIDs) }
    }

    /// The MusicBrainz ids a file's tags carry (MPD's `MUSICBRAINZ_*` tags). Files already indexed get them at their
    /// next full scan (`rescan`), or when they change.
    static let v3MusicBrainzIDs = """
        ALTER TABLE track ADD COLUMN mb_track_id TEXT;
        ALTER TABLE track ADD COLUMN mb_album_id TEXT;
        ALTER TABLE track ADD COLUMN mb_artist_id TEXT;
        ALTER TABLE track ADD COLUMN mb_album_artist_id TEXT;
        ALTER TABLE track ADD COLUMN mb_release_track_id TEXT;
        """

    /// Directories, tracks, identities of vanished files, scan issues and the scan counters. Paths are relative to
    /// the music directory, '/'-separated (MPD URIs); `path_bytes` holds the raw name when it is not valid UTF-8.
    /// Times: `mtime` in nanoseconds, the others in Unix seconds.
    ///
    /// A track's identity is a number (`identity_id`, from `scan_state.next_identity`) with its audio fingerprint;
    /// it gets a row of its own in `missing_identity` only while no file carries it. Few indexes on purpose: each
    /// costs every inserted track time in the first scan, and tag searches scan the table as MPD scans its memory
    /// (a few ms per 20,000 tracks).
    static let v1Library = """
        CREATE TABLE directory (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,
            parent_id INTEGER REFERENCES directory(id) ON DELETE CASCADE
        );
        CREATE INDEX directory_parent ON directory(parent_id);
        CREATE TABLE missing_identity (
            id INTEGER PRIMARY KEY,
            fingerprint TEXT NOT NULL,
            last_path TEXT NOT NULL,
            missing_since INTEGER NOT NULL
        );
        CREATE INDEX missing_identity_fingerprint ON missing_identity(fingerprint);
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
        CREATE INDEX track_directory ON track(directory_id);
        CREATE INDEX track_identity_ref ON track(identity_id);
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
        INSERT INTO scan_state (id, generation, next_identity) VALUES (1, 0, 1);
        """

    /// `v1-custom-metadata`'s play counts, ratings, practice time, preferred tempo and saved loops had two owners:
    /// nothing but tests wrote them, while the daemon keeps practice data in its own tables (`practice_time`,
    /// `practice_memory`, keyed by the same identity). Dropped; stickers stay.
    static let v2DropUnusedMetadata = """
        DROP INDEX loop_region_identity;
        DROP TABLE loop_region;
        DROP TABLE track_metadata;
        """

    /// Custom metadata and MPD stickers, keyed by track identity (so they follow the audio, not the path, and stay
    /// while the file is missing).
    static let v1CustomMetadata = """
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
        CREATE INDEX loop_region_identity ON loop_region(identity_id);
        CREATE TABLE sticker (
            identity_id INTEGER NOT NULL,
            name TEXT NOT NULL,
            value TEXT NOT NULL,
            PRIMARY KEY (identity_id, name)
        ) WITHOUT ROWID;
        """

    /// Full-text search over title, artist, album and path (FTS5 with the track table as external content), filled
    /// from the tracks already present. The scanner keeps it in step itself (`SearchIndex`): FTS5 under a row
    /// trigger flushes its pending terms at every statement and made first scans four times slower. Token prefix
    /// queries are all the library asks, so no positions are stored (`detail=none`, `columnsize=0`): a third of the
    /// indexing time of the default.
    static let v1Search = """
        CREATE VIRTUAL TABLE track_fts USING fts5(
            title, artist, album, path,
            content='track', content_rowid='id', tokenize='unicode61 remove_diacritics 2',
            detail=none, columnsize=0
        );
        INSERT INTO track_fts (track_fts) VALUES ('rebuild');
        """
}
