import DatabaseFile
import Foundation
import GRDB
import Testing
import TestSupport

/// The migration runner and the schema's shape on their own, with migrations made up for the test (the library's,
/// the state's and practice's are tested where they live): all missing migrations in one transaction, a file from a
/// newer Fermata refused, a module's migration inserted where it shipped, and the shape a file's recorded migrations
/// make, which `fermata doctor` compares with the file.
@Suite struct SchemaMigrationsTests {
    static func schema(_ steps: [(String, String)]) -> DatabaseSchema {
        var schema = DatabaseSchema()
        for (name, sql) in steps { schema.migrations.register(name) { db in try db.execute(sql: sql) } }
        return schema
    }

    static let base = [("a", "CREATE TABLE a (x INTEGER)"), ("b", "CREATE INDEX a_x ON a(x)"),
                       ("c", "ALTER TABLE a ADD COLUMN y TEXT")]

    @Test func aFailingMigrationLeavesTheFileAsItWas() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("f.sqlite")
        _ = try FermataDatabase(path: path, schema: Self.schema(Array(Self.base.prefix(1))))
        let failing = Self.schema(Self.base + [("d", "CREATE TABLE a (z INTEGER)")])  // a already exists: fails
        #expect(throws: (any Error).self) { _ = try FermataDatabase(path: path, schema: failing) }
        let reopened = try FermataDatabase(path: path, schema: Self.schema(Array(Self.base.prefix(1))))
        let indexes = try reopened.pool.read { try String.fetchAll($0, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%'") }
        #expect(indexes.isEmpty, "b ran and was not rolled back: \(indexes)")
    }

    @Test func aFileFromANewerFermataIsRefused() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("f.sqlite")
        _ = try FermataDatabase(path: path, schema: Self.schema(Self.base))
        #expect(throws: SchemaMigrations.Failure.self) {
            _ = try FermataDatabase(path: path, schema: Self.schema(Array(Self.base.prefix(2))))
        }
    }

    @Test func aModulesMigrationGoesWhereItShipped() {
        var schema = Self.schema(Self.base)
        schema.migrations.register("b2", after: "b") { db in try db.execute(sql: "CREATE TABLE b2 (x)") }
        #expect(schema.migrations.names == ["a", "b", "b2", "c"])
    }

    @Test func theShapeIsWhatTheRecordedMigrationsMakeAndSeesAHandEdit() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("f.sqlite")
        let schema = Self.schema(Self.base)
        let database = try FermataDatabase(path: path, schema: schema)
        let actual = try database.pool.read { try SchemaShape.read($0) }
        let expected = try #require(try schema.migrations.shape(afterApplying: ["a", "b", "c"], schema: schema))
        #expect(expected == actual)
        #expect(expected.objects["table a"] == "CREATE TABLE a (x INTEGER, y TEXT)", "\(expected.lines)")
        // Up to b only, the shape lacks the column c added.
        let older = try #require(try schema.migrations.shape(afterApplying: ["a", "b"], schema: schema))
        #expect(older.changes(to: actual) == ["- table a: CREATE TABLE a (x INTEGER)", "+ table a: CREATE TABLE a (x INTEGER, y TEXT)"])
        // A table added by hand is seen; a migration this list does not know gives no shape.
        try database.pool.write { try $0.execute(sql: "CREATE TABLE extra (q)") }
        let edited = try database.pool.read { try SchemaShape.read($0) }
        #expect(expected.changes(to: edited) == ["+ table extra: CREATE TABLE extra (q)"])
        #expect(try schema.migrations.shape(afterApplying: ["a", "zz"], schema: schema) == nil)
    }
}
