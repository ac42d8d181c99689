import DatabaseFile
import GRDB

/// `fermata doctor`'s look at the state database's schema: is the file's shape the one its recorded migrations make
/// (`SchemaShape`)? A file whose tables were changed by hand, or by a build whose migration was edited after it
/// shipped, says which objects differ.
///
/// Stateless; call from any thread (it blocks: opens the file read-only and builds the expected shape in memory).
public enum StateSchemaCheck {
    public enum Verdict: Sendable, Equatable {
        /// The file's shape is what its `migrations` make.
        case matches(migrations: Int)
        /// Objects that differ: "- table x: …" as the migrations make it, "+ table x: …" as the file has it.
        case differs([String])
        /// The file records migrations this Fermata does not know.
        case newer([String])
        case unreadable(String)
    }

    public static func check(path: String, schema: DatabaseSchema = .fermata) -> Verdict {
        do {
            var configuration = FermataDatabase.configuration(schema)
            configuration.readonly = true
            let file = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? file.close() }
            let (applied, actual) = try file.read { db -> (Set<String>, SchemaShape) in
                let applied = try db.tableExists("grdb_migrations")
                    ? Set(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")) : []
                return (applied, try SchemaShape.read(db))
            }
            guard let expected = try schema.migrations.shape(afterApplying: applied, schema: schema) else {
                return .newer(applied.subtracting(schema.migrations.names).sorted())
            }
            let changes = expected.changes(to: actual)
            return changes.isEmpty ? .matches(migrations: applied.count) : .differs(changes)
        } catch {
            return .unreadable("\(error)")
        }
    }
}
