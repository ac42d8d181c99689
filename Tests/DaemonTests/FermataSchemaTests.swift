import Daemon
import DatabaseFile
import GRDB
import Library
import Testing
import TestSupport

/// The file as fermatad opens it: each module registers its own migrations, and the composed list keeps the order
/// they shipped in, so a fresh file and one upgraded from any release run the same steps in the same order.
@Suite struct FermataSchemaTests {
    @Test func theModulesMigrationsKeepTheOrderTheyShippedIn() {
        let library = DatabaseSchema.library.migrations.names
        let names = DatabaseSchema.fermata.migrations.names
        #expect(Array(names.prefix(library.count)) == library)
        #expect(Array(names.dropFirst(library.count)) == [
            "v1-queue-state", "v2-output-state", "v2-practice", "v3-position-sequence", "v4-queue-segments",
            "v5-practice-keeps-identities", "v6-player-tempo", "v7-cards", "v8-player-key-and-beat", "v9-practice-key-and-beat",
            "v10-practice-sections", "v11-queue-entries-keyed", "v12-web-access", "v13-practice-trainer", "v14-takes", "v15-alarms",
            "v16-record-latency",
        ])
    }

    @Test func aFileFromBeforePracticeKeptItsIdentitiesUpgradesInPlace() throws {
        let dir = try TemporaryDirectory(prefix: "fermata-schema")
        let path = dir.path + "/" + FermataDatabase.fileName
        let old = try DatabaseQueue(path: path)
        try DatabaseSchema.fermata.migrations.makeMigrator().migrate(old, upTo: "v4-queue-segments")
        try old.close()
        let database = try FermataDatabase(stateDirectory: dir.path, schema: .fermata)
        #expect(database.appliedMigrations.suffix(12) == [
            "v5-practice-keeps-identities", "v6-player-tempo", "v7-cards", "v8-player-key-and-beat", "v9-practice-key-and-beat",
            "v10-practice-sections", "v11-queue-entries-keyed", "v12-web-access", "v13-practice-trainer", "v14-takes", "v15-alarms",
            "v16-record-latency",
        ])
    }
}
