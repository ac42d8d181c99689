import DatabaseFile

extension DatabaseSchema {
    /// Inserts the takes table where it shipped (after `v13-practice-trainer`): call after `addPracticeTables()`.
    public mutating func addRecordingTables() {
        migrations.register("v14-takes", after: "v13-practice-trainer") { db in
            // One row per committed take: its file is takes/take-ID.flac in the state folder. Keyed like practice
            // time (the track's identity, else its path) with the loop region it was recorded over in milliseconds
            // (the section's ends), the pass it is, the tempo, and where it starts against the pass, so it plays back
            // lined up. A take is written before its row (a row never names a missing file; a file without a row is
            // removed at start).
            try db.execute(sql: """
                CREATE TABLE take (
                    id INTEGER PRIMARY KEY,
                    subject TEXT NOT NULL,
                    path TEXT NOT NULL,
                    loop_start_ms INTEGER NOT NULL,
                    loop_end_ms INTEGER NOT NULL,
                    pass INTEGER NOT NULL,
                    tempo_percent INTEGER NOT NULL,
                    sample_rate INTEGER NOT NULL,
                    channels INTEGER NOT NULL,
                    frames INTEGER NOT NULL,
                    bytes INTEGER NOT NULL,
                    latency_frames INTEGER NOT NULL,
                    recorded_at INTEGER NOT NULL
                );
                CREATE INDEX take_subject ON take(subject, loop_start_ms, loop_end_ms);
                """)
        }
        migrations.register("v16-record-latency", after: "v15-alarms") { db in
            // The round trip from the output to the capture device (`fermata audio latency`), per pair of devices:
            // what a take is moved by to line up with its pass. Measured once, kept across restarts.
            try db.execute(sql: """
                CREATE TABLE record_latency (
                    output_device TEXT NOT NULL,
                    capture_device TEXT NOT NULL,
                    sample_rate INTEGER NOT NULL,
                    frames INTEGER NOT NULL,
                    measured_at INTEGER NOT NULL,
                    PRIMARY KEY (output_device, capture_device)
                )
                """)
        }
    }
}
