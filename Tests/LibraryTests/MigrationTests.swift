import DatabaseFile
import Foundation
import GRDB
@testable import Library
import TestSupport
import Testing

@Suite("Database and migrations")
struct MigrationTests {
    /// The library's schema with `extra` migrations appended after its own (as the state database appends its tables).
    static func library(adding extra: (inout SchemaMigrations) -> Void) -> DatabaseSchema {
        var schema = DatabaseSchema.library
        extra(&schema.migrations)
        return schema
    }

    /// Rows valid at every shipped schema: one directory and one track.
    static func insertTrack(_ db: Database) throws {
        try db.execute(sql: "INSERT INTO directory (id, path, parent_id) VALUES (1, '', NULL), (2, 'Old', 1)")
        try db.execute(sql: """
            INSERT INTO track (id, path, directory_id, identity_id, fingerprint, size, mtime, format, title, artist,
                album, sample_rate, channels, bits_per_sample, duration, added_at)
            VALUES (1, 'Old/Song.flac', 2, 7, 'flac-md5:00:1', 10, 20, 'flac', 'Old Song', 'Old Artist', 'Old Album',
                44100, 2, 16, 61.5, 1)
            """)
        try db.execute(sql: "UPDATE scan_state SET next_identity = 8")
    }

    @Test("a database from each earlier migration opens, migrates in place and keeps its data",
          arguments: LibraryMigrations.names.dropLast())
    func earlierMigration(_ name: String) async throws {
        let dir = try TemporaryDirectory()
        let path = dir.file(FermataDatabase.fileName)
        do {
            let queue = try DatabaseQueue(path: path)
            try DatabaseSchema.library.migrations.makeMigrator().migrate(queue, upTo: name)
            try await queue.write { db in
                try Self.insertTrack(db)
                if try db.tableExists("track_metadata") {
                    try db.execute(sql: "INSERT INTO track_metadata (identity_id, play_count, rating) VALUES (7, 5, 9)")
                }
                if try db.tableExists("sticker") {
                    try db.execute(sql: "INSERT INTO sticker (identity_id, name, value) VALUES (7, 'k', 'v')")
                }
                // The scanner keeps the search index; rows written by hand after `v1-search` need it rebuilt.
                if try db.tableExists("track_fts") { try SearchIndex.rebuild(db) }
            }
        }
        let database = try FermataDatabase(path: path, schema: .library)
        let done = LibraryMigrations.names.firstIndex(of: name)! + 1
        #expect(database.appliedMigrations == Array(LibraryMigrations.names[done...]))
        let library = Library(database: database, musicDirectory: dir.path)
        let track = try #require(try await library.track(path: "Old/Song.flac"))
        #expect(track.title == "Old Song" && track.identityID == 7 && track.duration == 61.5)
        #expect(try await library.fullTextSearch("old son").map(\.path) == ["Old/Song.flac"])
        #expect(try await library.directory("")?.directories == ["Old"])
        if name != "v1-library" {
            #expect(try await library.sticker(path: "Old/Song.flac", name: "k") == "v")
        }
        // The unused custom-metadata tables are gone (v2-drop-unused-metadata); the stickers beside them stay.
        let tables = try await database.pool.read { (db: Database) throws -> [Bool] in
            [try db.tableExists("track_metadata"), try db.tableExists("loop_region"), try db.tableExists("sticker")]
        }
        #expect(tables == [false, false, true])
        try await library.setSticker(path: "Old/Song.flac", name: "new", value: "works")
        // Opening again applies nothing.
        #expect(try FermataDatabase(path: path, schema: .library).appliedMigrations.isEmpty)
    }

    @Test("a database written by a newer Fermata is refused with a clear message")
    func newerSchema() throws {
        let dir = try TemporaryDirectory()
        _ = try FermataDatabase(stateDirectory: dir.path, schema: .library)
        let queue = try DatabaseQueue(path: dir.file(FermataDatabase.fileName))
        try queue.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9-from-the-future')")
        }
        do {
            _ = try FermataDatabase(stateDirectory: dir.path, schema: .library)
            Issue.record("a newer database was opened")
        } catch let SchemaMigrations.Failure.newerSchema(path, unknown) {
            #expect(unknown == ["v9-from-the-future"])
            #expect(path.hasSuffix(FermataDatabase.fileName))
            let message = "\(SchemaMigrations.Failure.newerSchema(path: path, unknownMigrations: unknown))"
            #expect(message.contains("newer version of Fermata") && message.contains("v9-from-the-future"))
        }
    }

    @Test("the missing migrations run in one transaction: a failing one leaves the database untouched")
    func oneTransaction() throws {
        struct Boom: Error {}
        let dir = try TemporaryDirectory()
        let path = dir.file(FermataDatabase.fileName)
        #expect(throws: Boom.self) {
            _ = try FermataDatabase(path: path, schema: Self.library { migrations in
                migrations.register("v2-test-fails") { db in
                    try db.execute(sql: "CREATE TABLE half_done (x)")
                    throw Boom()
                }
            })
        }
        let queue = try DatabaseQueue(path: path)
        let (track, halfDone, applied) = try queue.read { db in
            (try db.tableExists("track"), try db.tableExists("half_done"),
             try DatabaseSchema.library.migrations.makeMigrator().appliedIdentifiers(db))
        }
        #expect(!track && !halfDone && applied.isEmpty)
    }

    @Test("other modules' migrations run after the library's, and the file is WAL with synchronous=NORMAL")
    func extraMigrationsAndSettings() throws {
        let dir = try TemporaryDirectory()
        let database = try FermataDatabase(stateDirectory: dir.path, schema: Self.library { migrations in
            migrations.register("v2-queue-test") { db in try db.execute(sql: "CREATE TABLE queue_test (x)") }
        })
        #expect(database.appliedMigrations == LibraryMigrations.names + ["v2-queue-test"])
        let (journal, synchronous, table) = try database.pool.read { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA synchronous"),
             try db.tableExists("queue_test"))
        }
        #expect(journal == "wal" && synchronous == 1 && table)
        #expect(Self.library { $0.register("v2-x") { _ in } }.migrations.makeMigrator().migrations
            == LibraryMigrations.names + ["v2-x"])
    }

    /// The schema each shipped migration leaves (as written in its SQL; FTS5's generated shadow tables left out, they
    /// vary with the SQLite version), hashed. A failure here means a shipped migration was edited: add a new
    /// migration instead (and record its hash here).
    static let shippedSchemas: [String: String] = [
        "v1-library": "51cad967934cc454",
        "v1-custom-metadata": "a66712d25c0b5bb2",
        "v1-search": "5b60df14d6ed13c1",
        "v2-drop-unused-metadata": "1794a92067a5def2",
        "v3-musicbrainz-ids": "cb9e7104a6a14c44",
    ]

    @Test("shipped migrations are never edited")
    func shippedMigrationsUnchanged() throws {
        for name in LibraryMigrations.names {
            let queue = try DatabaseQueue()
            try DatabaseSchema.library.migrations.makeMigrator().migrate(queue, upTo: name)
            let schema = try queue.read { db in
                try String.fetchAll(db, sql: """
                    SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_master
                    WHERE name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations'
                    AND substr(name, 1, 10) != 'track_fts_' ORDER BY name
                    """).joined(separator: "\n")
            }
            // FNV-1a, spelled out so the recorded values never depend on library code.
            let hash = schema.utf8.reduce(UInt64(0xCBF2_9CE4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
            #expect(Self.shippedSchemas[name] == String(hash, radix: 16), "migration \(name) changed")
        }
    }
}
