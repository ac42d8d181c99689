import GRDB

/// Everything the modules sharing the state database file ask of it: the migrations, in order, and what each
/// connection needs as it opens (SQL functions). The library provides its part (`DatabaseSchema.library`), the state
/// database and practice add theirs (`addStateTables()`, `addPracticeTables()`), the daemon composes the whole file
/// (`DatabaseSchema.fermata`), and `FermataDatabase` opens the file with the result.
///
/// A value, built once before the file opens.
public struct DatabaseSchema: Sendable {
    public var migrations = SchemaMigrations()
    /// Run on every connection as it opens, after the file's own settings.
    public private(set) var connectionSetups: [@Sendable (Database) throws -> Void] = []

    public init() {}

    /// Adds `setup` to what every connection runs as it opens (a module's SQL functions).
    public mutating func setUpEachConnection(_ setup: @escaping @Sendable (Database) throws -> Void) {
        connectionSetups.append(setup)
    }
}
