import Foundation
import GRDB

/// The state database file, `library.sqlite` in the state directory, which holds the library's tables and the
/// state's (queue, player state, outputs, practice): opened once per process, in WAL mode with `synchronous=NORMAL`
/// and a busy timeout, and migrated (or refused, when a newer Fermata wrote it) before anything else touches it. What
/// is in it is the `DatabaseSchema` it is opened with; this type owns only the file and its connections.
///
/// Sendable; share the one instance. Its `pool` serialises writes on GRDB's writer queue and runs reads
/// concurrently, so any thread or task may use it (blocking calls belong off the cooperative pool: use GRDB's async
/// `read`/`write`, as `Library` does).
public final class FermataDatabase: Sendable {
    /// The database file's name inside the state directory (the library's tables came first; the name stays so that
    /// existing installations open the same file).
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

    /// Opens (creating if needed) `stateDirectory/library.sqlite` and brings it up to date with `schema`'s
    /// migrations. A database that records a migration this binary does not know throws
    /// `SchemaMigrations.Failure.newerSchema`; an older one is migrated in one transaction.
    public convenience init(stateDirectory: String, schema: DatabaseSchema) throws {
        if let reason = Self.makeDirectories(stateDirectory) {
            throw OpenError.stateDirectory(path: stateDirectory, reason: reason)
        }
        try self.init(path: stateDirectory + "/" + Self.fileName, schema: schema)
    }

    /// Opens the database at an explicit file path (tests and tools); same behaviour as `init(stateDirectory:)`.
    public init(path: String, schema: DatabaseSchema) throws {
        self.path = path
        pool = try DatabasePool(path: path, configuration: Self.configuration(schema))
        appliedMigrations = try schema.migrations.apply(to: pool)
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

    /// The connection settings every connection gets: busy timeout, `synchronous=NORMAL`, then `schema`'s own
    /// set-up (the SQL functions the library's searches use).
    public static func configuration(_ schema: DatabaseSchema) -> Configuration {
        var configuration = Configuration()
        configuration.label = "fermata.state"
        configuration.busyMode = .timeout(10)
        configuration.maximumReaderCount = 3
        // `releaseMemory()` (after a scan) empties the readers' page caches and keeps them open: a reader reopened
        // would need the file to be where it was, and gains nothing.
        configuration.persistentReadOnlyConnections = true
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            // The WAL is cut back to nothing each time it restarts, so writes append instead of overwriting old frames:
            // a frame (4,120 bytes) covers page-cache pages only partly, and once those pages are evicted every such
            // write first reads them back from the disk (+10 ms on a 10,000-entry queue edit).
            try db.execute(sql: "PRAGMA journal_size_limit = 0")
            // Readers keep 512 KiB of pages each, not SQLite's 2 MB: a `listall` or a queue add reads the track table
            // through, and three readers kept 6 MB of it resident for good, where the kernel's page cache (evictable,
            // not the daemon's) holds the file anyway. The writer keeps 2 MB for the scan.
            if db.configuration.readonly { try db.execute(sql: "PRAGMA cache_size = -512") }
            for setup in schema.connectionSetups { try setup(db) }
        }
        return configuration
    }
}
