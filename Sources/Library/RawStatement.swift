import GRDB
import GRDBSQLite

/// A prepared GRDB statement driven through SQLite's C API: binding a track's ~28 values this way costs a fraction
/// of building `StatementArguments`, which showed as more time than SQLite itself in the first-scan profile.
///
/// Used inside one GRDB access block, on the connection that prepared the statement, by the scan thread only.
struct RawStatement {
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

    let handle: OpaquePointer
    private let db: Database

    /// The connection's cached statement for `sql`.
    init(_ db: Database, _ sql: String) throws {
        self.db = db
        handle = try db.cachedStatement(sql: sql).sqliteStatement
    }

    func bind(_ index: Int32, _ value: String?) {
        guard var value else { sqlite3_bind_null(handle, index); return }
        value.withUTF8 { text in
            guard let base = text.baseAddress else {
                _ = sqlite3_bind_text(handle, index, "", 0, Self.transient)
                return
            }
            _ = sqlite3_bind_text(handle, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self),
                                  Int32(text.count), Self.transient)
        }
    }

    func bind(_ index: Int32, _ value: Int64?) {
        guard let value else { sqlite3_bind_null(handle, index); return }
        sqlite3_bind_int64(handle, index, value)
    }

    func bind(_ index: Int32, _ value: Int?) {
        bind(index, value.map(Int64.init))
    }

    func bind(_ index: Int32, _ value: Double?) {
        guard let value else { sqlite3_bind_null(handle, index); return }
        sqlite3_bind_double(handle, index, value)
    }

    func bind(_ index: Int32, bytes: [UInt8]?) {
        guard let bytes else { sqlite3_bind_null(handle, index); return }
        bytes.withUnsafeBytes { raw in
            _ = sqlite3_bind_blob(handle, index, raw.baseAddress, Int32(raw.count), Self.transient)
        }
    }

    /// Runs the statement to completion and resets it for the next use.
    func run() throws {
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard code == SQLITE_DONE else {
            let message = db.sqliteConnection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message)
        }
    }
}
