import DatabaseFile

extension DatabaseSchema {
    /// Appends the queue, the player state, the outputs and the cards (`StateMigrations`, in the order they shipped)
    /// after what is registered (the library's tables in the daemon's file).
    public mutating func addStateTables() {
        StateMigrations.register(in: &migrations)
    }
}

/// The daemon's tables in the state database: the queue and the player's saved state. Named migrations, appended after
/// the library's; never edited once shipped. Practice's two (`v2-practice`, `v5-practice-keeps-identities`) shipped
/// between these and are inserted there by the Practice module.
enum StateMigrations {
    static func register(in migrations: inout SchemaMigrations) {
        migrations.register("v1-queue-state") { db in
            try db.execute(sql: """
                CREATE TABLE queue_entry (
                    id INTEGER PRIMARY KEY,
                    sort_key INTEGER NOT NULL,
                    shuffle_key INTEGER,
                    uri TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    rg_track_gain REAL, rg_track_peak REAL, rg_album_gain REAL, rg_album_peak REAL
                );
                CREATE INDEX queue_entry_sort ON queue_entry(sort_key);
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
                );
                """)
        }
        migrations.register("v2-output-state") { db in
            // Which outputs `enableoutput`/`disableoutput` left on, by output name (survives restarts).
            try db.execute(sql: "CREATE TABLE output_state (name TEXT PRIMARY KEY, enabled INTEGER NOT NULL)")
        }
        migrations.register("v3-position-sequence") { db in
            // Orders the position in player_state against the checkpoint file beside the database (newer wins).
            try db.execute(sql: "ALTER TABLE player_state ADD COLUMN position_seq INTEGER NOT NULL DEFAULT 0")
        }
        migrations.register("v4-queue-segments", QueueSegmentsMigration.migrate)
        migrations.register("v6-player-tempo") { db in
            // The speed in percent as acknowledged: the power-cut campaign found it came back only from the current
            // track's practice memory, so a tempo carried into another track was lost by any restart.
            try db.execute(sql: "ALTER TABLE player_state ADD COLUMN tempo_percent INTEGER NOT NULL DEFAULT 100")
        }
        migrations.register("v7-cards") { db in
            // Cards bound with `fermata card assign`/`learn` (the configuration's [card-ID] sections are not copied
            // here), and the card whose music is in the queue, so its volume cap holds after a restart.
            try db.execute(sql: """
                CREATE TABLE card (
                    id TEXT PRIMARY KEY NOT NULL,
                    target TEXT NOT NULL,
                    volume_max INTEGER CHECK (volume_max BETWEEN 0 AND 100),
                    assigned_at INTEGER NOT NULL
                );
                CREATE TABLE card_active (
                    one INTEGER PRIMARY KEY CHECK (one = 1),
                    id TEXT NOT NULL
                );
                """)
        }
        migrations.register("v8-player-key-and-beat") { db in
            // The transposition in cents, the current track's beat and the click over the track as acknowledged
            // (they survive a restart, as the tempo does).
            try db.execute(sql: """
                ALTER TABLE player_state ADD COLUMN transpose_cents INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE player_state ADD COLUMN beats_per_minute REAL;
                ALTER TABLE player_state ADD COLUMN beat_offset_ms INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE player_state ADD COLUMN metronome_beats INTEGER;
                ALTER TABLE player_state ADD COLUMN metronome_level REAL NOT NULL DEFAULT 1;
                """)
        }
        // Shipped after practice's v9 and v10, which are inserted before it (`register(_:after:)` keeps them there).
        migrations.register("v11-queue-entries-keyed", QueueEntriesKeyedMigration.migrate)
        migrations.register("v12-web-access") { db in
            // The web remote's password hashes (owner and guest; set with `fermata web password`, never in clear) and
            // its sessions (the token's hash; a cookie holds the token).
            try db.execute(sql: """
                CREATE TABLE web_password (
                    role TEXT PRIMARY KEY NOT NULL CHECK (role IN ('owner', 'guest')),
                    hash TEXT NOT NULL,
                    set_at INTEGER NOT NULL
                );
                CREATE TABLE web_session (
                    id TEXT PRIMARY KEY NOT NULL,
                    token_hash TEXT NOT NULL,
                    role TEXT NOT NULL CHECK (role IN ('owner', 'guest')),
                    created_at INTEGER NOT NULL,
                    used_at INTEGER NOT NULL
                );
                """)
        }
        migrations.register("v15-alarms") { db in
            // The alarms (`fermata alarm`): a local time, the days it repeats or its one date, what it plays (a card's
            // target or a stream's URL), its volume and fade-in, and the firing that last played (a clock set back
            // does not play it twice).
            try db.execute(sql: """
                CREATE TABLE alarm (
                    id INTEGER PRIMARY KEY,
                    time TEXT NOT NULL,
                    repeats TEXT NOT NULL,
                    source TEXT NOT NULL,
                    volume INTEGER CHECK (volume BETWEEN 0 AND 100),
                    fade_seconds INTEGER NOT NULL CHECK (fade_seconds BETWEEN 0 AND 3600),
                    enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
                    last_fired INTEGER,
                    created_at INTEGER NOT NULL
                );
                """)
        }
    }
}
