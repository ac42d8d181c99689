import GRDB

/// What a database file's schema is, object by object (tables, indexes, views, triggers, with their SQL text, spaces
/// collapsed): the shape the migrations it records should have left. Read from a file, or built by applying
/// migrations to an empty database; two shapes compare object by object. GRDB's own bookkeeping table is left out.
///
/// The released migrations are pinned by their shapes (`MigrationPinTests`: a shipped migration whose body changed
/// makes a different shape), and `fermata doctor` compares a file's shape with the one its recorded migrations make.
///
/// A value; any thread.
public struct SchemaShape: Sendable, Equatable {
    /// "table track", "index track_album", … → the object's SQL, whitespace collapsed (nil: SQLite keeps none, as for
    /// an automatic index).
    public var objects: [String: String]

    public init(objects: [String: String]) { self.objects = objects }

    /// The shape of the schema `db` has now.
    public static func read(_ db: Database) throws -> SchemaShape {
        var objects: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: """
            SELECT type, name, sql FROM sqlite_master
            WHERE name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations'
            """) {
            let type: String = row["type"], name: String = row["name"], sql: String? = row["sql"]
            objects["\(type) \(name)"] = sql.map(collapsed) ?? ""
        }
        return SchemaShape(objects: objects)
    }

    /// The objects, one line each in name order: "table track: CREATE TABLE track (…)".
    public var lines: [String] { objects.keys.sorted().map { "\($0): \(objects[$0]!)" } }

    /// What `other` has that this shape has not, or has differently ("+ …"), and what it lacks ("- …"), in name order.
    public func changes(to other: SchemaShape) -> [String] {
        let names = Set(objects.keys).union(other.objects.keys).sorted()
        var changes: [String] = []
        for name in names where objects[name] != other.objects[name] {
            if let old = objects[name] { changes.append("- \(name): \(old)") }
            if let new = other.objects[name] { changes.append("+ \(name): \(new)") }
        }
        return changes
    }

    /// SQL text with every run of whitespace one space, trimmed (a migration's indentation is not its shape).
    static func collapsed(_ sql: String) -> String {
        sql.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).joined(separator: " ")
    }
}

extension SchemaMigrations {
    /// The shape a file that recorded exactly `applied` should have: those migrations, in this list's order, run on an
    /// empty in-memory database set up as `schema` sets up every connection. Nil when `applied` names a migration this
    /// list does not know (a newer Fermata wrote the file).
    public func shape(afterApplying applied: Set<String>, schema: DatabaseSchema) throws -> SchemaShape? {
        guard applied.isSubset(of: Set(names)) else { return nil }
        let queue = try DatabaseQueue(configuration: FermataDatabase.configuration(schema))
        return try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")  // as `apply(to:)` runs them
            for step in steps where applied.contains(step.name) {
                try db.inTransaction {
                    try step.migrate(db)
                    return .commit
                }
            }
            return try SchemaShape.read(db)
        }
    }

    /// The shapes after each migration in order, from an empty database (for pinning the released ones).
    public func shapes(schema: DatabaseSchema) throws -> [(name: String, shape: SchemaShape)] {
        let queue = try DatabaseQueue(configuration: FermataDatabase.configuration(schema))
        return try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")  // as `apply(to:)` runs them
            return try steps.map { step in
                try db.inTransaction {
                    try step.migrate(db)
                    return .commit
                }
                return (step.name, try SchemaShape.read(db))
            }
        }
    }
}
