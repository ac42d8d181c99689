import Foundation
import GRDB

/// The state database, `library.sqlite` in the state directory: opened once per process, in WAL mode with
/// `synchronous=NORMAL` and a busy timeout, and migrated (or refused, when a newer Fermata wrote it) before anything
/// else touches it.
///
/// Sendable; share the one instance. Its `pool` serialises writes on GRDB's writer queue and runs reads
/// concurrently, so any thread or task may use it (blocking calls belong off the cooperative pool: use GRDB's async
/// `read`/`write`, as `Library` does).
public final class LibraryDatabase: Sendable {
    /// The database file's name inside the state directory.
    public static let fileName = "library.sqlite"

    /// Why the database could not be opened.
    public enum OpenError: Error, Sendable, CustomStringConvertible {
        /// The state directory does not exist and cannot be created.
        case stateDirectory(path: String, reason: String)

        public var description: String {
            switch self {
            case let .stateDirectory(path, reason): "cannot use the state directory \(path): \(reason)"
            }
        }
    }

    /// The connection pool (one writer, several readers).
    public let pool: DatabasePool
    /// Path of the database file.
    public let path: String
    /// Migrations applied by this open (empty when the file was current), for logging.
    public let appliedMigrations: [String]
    /// Counts the commits that changed tracks or directories (`Library.contentVersion`); registered on the writer
    /// when the database opens, so no change can come before it.
    let changes = ContentVersion()

    /// Opens (creating if needed) `stateDirectory/library.sqlite` and brings it up to date: the library's
    /// migrations, then those `extraMigrations` appends. A database that records a migration this binary does not
    /// know throws `SchemaMigrations.Failure.newerSchema`; an older one is migrated in one transaction.
    public convenience init(
        stateDirectory: String, extraMigrations: (inout SchemaMigrations) -> Void = { _ in }
    ) throws {
        if let reason = Self.makeDirectories(stateDirectory) {
            throw OpenError.stateDirectory(path: stateDirectory, reason: reason)
        }
        try self.init(path: stateDirectory + "/" + Self.fileName, extraMigrations: extraMigrations)
    }

    /// Opens the database at an explicit file path (tests and tools); same behaviour as `init(stateDirectory:)`.
    public init(path: String, extraMigrations: (inout SchemaMigrations) -> Void = { _ in }) throws {
        self.path = path
        pool = try DatabasePool(path: path, configuration: Self.configuration())
        appliedMigrations = try Self.migrations(extra: extraMigrations).apply(to: pool)
        let changes = changes
        pool.writeWithoutTransaction { $0.add(transactionObserver: changes, extent: .databaseLifetime) }
    }

    /// Creates `path` and its missing parents (mode 0755); nil when it is a directory now, else what stood in the way
    /// in plain words ("/srv/x is not a directory", "permission denied creating /var/lib/fermata").
    static func makeDirectories(_ path: String) -> String? {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            var info = stat()
            if stat(prefix, &info) == 0 {
                guard info.st_mode & S_IFMT == S_IFDIR else { return "\(prefix) is not a directory" }
                continue
            }
            guard mkdir(prefix, 0o755) == 0 || errno == EEXIST else {
                return "\(String(cString: strerror(errno)).lowercased()) creating \(prefix)"
            }
        }
        return nil
    }

    /// The library's migrations followed by `extra`'s.
    public static func migrations(extra: (inout SchemaMigrations) -> Void = { _ in }) -> SchemaMigrations {
        var migrations = SchemaMigrations()
        LibraryMigrations.register(in: &migrations)
        extra(&migrations)
        return migrations
    }

    /// A GRDB migrator with the library's migrations followed by `extra`'s (tests build earlier schemas with it).
    public static func makeMigrator(extra: (inout SchemaMigrations) -> Void = { _ in }) -> DatabaseMigrator {
        migrations(extra: extra).makeMigrator()
    }

    /// The connection settings every connection gets: busy timeout, `synchronous=NORMAL`, the SQL functions the
    /// searches use.
    public static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.label = "fermata.library"
        configuration.busyMode = .timeout(10)
        configuration.maximumReaderCount = 3
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            // The WAL is cut back to nothing each time it restarts, so writes append instead of overwriting old frames:
            // a frame (4,120 bytes) covers page-cache pages only partly, and once those pages are evicted every such
            // write first reads them back from the disk (+10 ms on a 10,000-entry queue edit).
            try db.execute(sql: "PRAGMA journal_size_limit = 0")
            db.add(function: SearchFunctions.fold)
        }
        return configuration
    }
}
