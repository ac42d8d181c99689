import GRDB

/// The ordered, named schema migrations of the state database file: the library's first, then the state's (queue,
/// player state, outputs) appended after them, and practice's inserted where they shipped (`DatabaseSchema.library`,
/// `addStateTables()`, `addPracticeTables()`; the whole file is `DatabaseSchema.fermata`, in the daemon).
///
/// A value type, built once before the database opens. A migration's name and body never change once shipped;
/// a schema change is a new migration. Bookkeeping is GRDB's own (`grdb_migrations`), so `makeMigrator()` gives a
/// `DatabaseMigrator` that agrees with `apply(to:)` and can build a database at any earlier migration
/// (`migrate(_:upTo:)`), as the tests do.
public struct SchemaMigrations: Sendable {
    /// One named migration.
    public struct Step: Sendable {
        public let name: String
        let migrate: @Sendable (Database) throws -> Void

        /// Runs the migration's body alone, outside the bookkeeping (tools and tests that rebuild a list).
        public func run(_ db: Database) throws { try migrate(db) }
    }

    /// Why the migrations could not be applied.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// The database was written by a newer Fermata: it records migrations this binary does not know.
        case newerSchema(path: String, unknownMigrations: [String])
        /// A migration left a foreign key pointing nowhere; nothing was changed.
        case foreignKeyViolation(migration: String, table: String)

        public var description: String {
            switch self {
            case let .newerSchema(path, unknown):
                "the database \(path) was written by a newer version of Fermata (it has migrations "
                    + "\(unknown.joined(separator: ", ")) that this version does not know); refusing to open it. "
                    + "Run the newer version, or move the file aside to start a new library"
            case let .foreignKeyViolation(migration, table):
                "migration \(migration) left a dangling reference in table \(table); the database is unchanged"
            }
        }
    }

    public private(set) var steps: [Step] = []

    public init() {}

    /// The migration names, in order.
    public var names: [String] { steps.map(\.name) }

    /// Appends a migration. Names must be unique (a repeated name is a programming error).
    public mutating func register(_ name: String, _ migrate: @escaping @Sendable (Database) throws -> Void) {
        precondition(!steps.contains { $0.name == name }, "migration \(name) registered twice")
        steps.append(Step(name: name, migrate: migrate))
    }

    /// Inserts a migration right after `predecessor`, the one it shipped after: a module registers its own
    /// migrations and the file keeps the order they shipped in (a fresh file and an upgraded one run the same steps).
    /// `predecessor` must be registered already (a programming error otherwise).
    public mutating func register(_ name: String, after predecessor: String,
                                  _ migrate: @escaping @Sendable (Database) throws -> Void) {
        precondition(!steps.contains { $0.name == name }, "migration \(name) registered twice")
        guard let index = steps.firstIndex(where: { $0.name == predecessor }) else {
            preconditionFailure("migration \(name) ships after \(predecessor), which is not registered")
        }
        steps.insert(Step(name: name, migrate: migrate), at: index + 1)
    }

    /// A GRDB migrator holding the same migrations (for tools and tests; `apply(to:)` is what `FermataDatabase` uses).
    public func makeMigrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for step in steps { migrator.registerMigration(step.name, migrate: step.migrate) }
        return migrator
    }

    /// Brings the database up to date: refuses a database that records a migration this list does not know
    /// (GRDB's `hasBeenSuperseded`), and applies every missing migration in order inside ONE transaction (all or
    /// nothing), foreign keys checked before the commit. Returns the names applied (empty when the database was
    /// current).
    ///
    /// Why not `DatabaseMigrator.migrate`: it commits each migration on its own, so an upgrade across several
    /// migrations that fails half-way (a full SD card) leaves a schema no release ever shipped; here it leaves the
    /// file as the old release wrote it (`MigrationTests.oneTransaction`). GRDB cannot nest its per-migration
    /// transactions inside one, so the loop is ours; the bookkeeping stays GRDB's table, so `makeMigrator()` and this
    /// agree on what has been applied.
    @discardableResult
    public func apply(to writer: some DatabaseWriter) throws -> [String] {
        let names = self.names
        let path = writer.path
        let migrator = makeMigrator()
        return try writer.barrierWriteWithoutTransaction { db in
            let applied = try migrator.appliedIdentifiers(db)
            if try migrator.hasBeenSuperseded(db) {
                throw Failure.newerSchema(path: path, unknownMigrations: applied.subtracting(names).sorted())
            }
            let pending = steps.filter { !applied.contains($0.name) }
            guard !pending.isEmpty else { return [] }
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
            try db.inTransaction(.immediate) {
                try db.execute(sql: """
                    CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)
                    """)
                for step in pending {
                    try step.migrate(db)
                    try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [step.name])
                    if let violation = try Row.fetchOne(db, sql: "PRAGMA foreign_key_check") {
                        throw Failure.foreignKeyViolation(migration: step.name, table: violation[0] ?? "?")
                    }
                }
                return .commit
            }
            return pending.map(\.name)
        }
    }
}
