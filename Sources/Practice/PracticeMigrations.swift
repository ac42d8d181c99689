import DatabaseFile

extension DatabaseSchema {
    /// Inserts the practice tables where they shipped among the state's (after `v2-output-state`,
    /// `v4-queue-segments` and `v8-player-key-and-beat`): call after `addStateTables()`.
    public mutating func addPracticeTables() {
        PracticeMigrations.register(in: &migrations)
    }
}

/// The practice tables in the state database, each inserted after the state migration it shipped after. Never edited
/// once shipped: a change is a new named migration.
///
/// `practice_time` holds seconds actually played per local day, per track and per loop region (`-1`/`-1` when no loop
/// was active). A library track is keyed by its stable identity (`subject` = `identity:N`), so its time follows the
/// file through moves and renames; a file the library does not know is keyed by its path (`path:URI`). `path` is the
/// path it was last played under. `practice_memory` holds each track's last A–B region and tempo, keyed the same way.
/// Both are `WITHOUT ROWID`: one small B-tree page per write.
enum PracticeMigrations {
    static func register(in migrations: inout SchemaMigrations) {
        migrations.register("v2-practice", after: "v2-output-state") { db in
            try db.execute(sql: """
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
                CREATE TABLE practice_memory (
                    subject TEXT NOT NULL PRIMARY KEY,
                    loop_start_ms INTEGER,
                    loop_end_ms INTEGER,
                    loop_count INTEGER,
                    tempo_percent INTEGER NOT NULL DEFAULT 100,
                    updated_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                """)
        }
        migrations.register("v5-practice-keeps-identities", after: "v4-queue-segments") { db in
            try db.execute(sql: keepPractisedIdentities)
        }
        migrations.register("v9-practice-key-and-beat", after: "v8-player-key-and-beat") { db in
            // Each track's transposition in cents and the beat the listener tapped or set, remembered as its tempo is.
            try db.execute(sql: """
                ALTER TABLE practice_memory ADD COLUMN transpose_cents INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE practice_memory ADD COLUMN beats_per_minute REAL;
                ALTER TABLE practice_memory ADD COLUMN beat_offset_ms INTEGER NOT NULL DEFAULT 0;
                """)
        }
        migrations.register("v10-practice-sections", after: "v9-practice-key-and-beat") { db in
            // Each track's named sections, in the listener's order, keyed as its memory is; an identity with
            // sections is kept by the library's purge as one with time or memory is (the trigger is remade).
            try db.execute(sql: """
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
                DROP TRIGGER practice_keeps_missing_identity;
                CREATE TRIGGER practice_keeps_missing_identity BEFORE DELETE ON missing_identity
                WHEN NOT EXISTS (SELECT 1 FROM track WHERE identity_id = OLD.id)
                    AND (EXISTS (SELECT 1 FROM practice_memory WHERE subject = 'identity:' || OLD.id)
                         OR EXISTS (SELECT 1 FROM practice_section WHERE subject = 'identity:' || OLD.id)
                         OR EXISTS (SELECT 1 FROM practice_time WHERE identity_id = OLD.id))
                BEGIN SELECT RAISE(IGNORE); END;
                """)
        }
        migrations.register("v13-practice-trainer", after: "v12-web-access") { db in
            // A section's step trainer (start, step, passes per step, target, whether "again" falls back; all null:
            // none), and the tempo reached per local day and loop region: the tempo of the fastest pass heard to its
            // end there that day. A region with a reached tempo always has time counted (`practice_time`), so the
            // purge trigger needs no change.
            try db.execute(sql: """
                ALTER TABLE practice_section ADD COLUMN trainer_start INTEGER;
                ALTER TABLE practice_section ADD COLUMN trainer_step INTEGER;
                ALTER TABLE practice_section ADD COLUMN trainer_every INTEGER;
                ALTER TABLE practice_section ADD COLUMN trainer_target INTEGER;
                ALTER TABLE practice_section ADD COLUMN trainer_fallback INTEGER NOT NULL DEFAULT 0;
                CREATE TABLE practice_tempo (
                    day TEXT NOT NULL,
                    subject TEXT NOT NULL,
                    identity_id INTEGER,
                    path TEXT NOT NULL,
                    loop_start_ms INTEGER NOT NULL,
                    loop_end_ms INTEGER NOT NULL,
                    tempo_percent INTEGER NOT NULL,
                    PRIMARY KEY (day, subject, loop_start_ms, loop_end_ms)
                ) WITHOUT ROWID;
                """)
        }
    }

    /// The library forgets an identity missing for 30 days that nothing refers to (`ScanFinisher`); it knows its own
    /// stickers but not these tables (the module graph runs one way). This trigger makes the purge skip an identity
    /// with practice time or memory, so a file away for longer (a card in a drawer, a disk unplugged for the summer)
    /// comes back to its statistics, loop and tempo. An identity a file carries again is deleted from
    /// `missing_identity` as before (the library moves it to the track first). The index keeps the check a lookup:
    /// without it each deleted row read the whole of `practice_time`. The library's `INSERT OR REPLACE` into the
    /// table does not fire the trigger as long as `recursive_triggers` is off (SQLite's and GRDB's default); with it
    /// on, the trigger would ignore REPLACE's delete and the insert would fail.
    static let keepPractisedIdentities = """
        CREATE INDEX practice_time_identity ON practice_time(identity_id);
        CREATE TRIGGER practice_keeps_missing_identity BEFORE DELETE ON missing_identity
        WHEN NOT EXISTS (SELECT 1 FROM track WHERE identity_id = OLD.id)
            AND (EXISTS (SELECT 1 FROM practice_memory WHERE subject = 'identity:' || OLD.id)
                 OR EXISTS (SELECT 1 FROM practice_time WHERE identity_id = OLD.id))
        BEGIN SELECT RAISE(IGNORE); END;
        """
}
