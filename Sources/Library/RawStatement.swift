import GRDB
import GRDBSQLite

/// A prepared GRDB statement driven through SQLite's C API: binding a track's ~28 values this way costs a fraction
/// of building `StatementArguments`, which showed as more time than SQLite itself in the first-scan profile.
///
/// Reading rows the same way (`step`, `text`, `double`) skips GRDB's generic row decoding, which cost more than the
/// query in `add /` of a big library.
///
/// Used inside one GRDB access block, on the connection that prepared the statement.
struct RawStatement {
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

    let handle: OpaquePointer
    private let db: Database

    /// The connection's cached statement for `sql`.
    init(_ db: Database, _ sql: String) throws {
        self.db = db
        handle = try db.cachedStatement(sql: sql).sqliteStatement
    }

    /// The connection's cached statement for `sql`, with `arguments` bound.
    init(_ db: Database, _ sql: String, arguments: StatementArguments) throws {
        self.db = db
        let statement = try db.cachedStatement(sql: sql)
        try statement.setArguments(arguments)
        handle = statement.sqliteStatement
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

    /// Moves to the next row: true when there is one; false at the end, with the statement reset for its next use.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        sqlite3_reset(handle)
        guard code == SQLITE_DONE else {
            let message = db.sqliteConnection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message)
        }
        return false
    }

    /// The current row's `column` as text (nil when NULL).
    func text(_ column: Int32) -> String? {
        guard sqlite3_column_type(handle, column) != SQLITE_NULL, let bytes = sqlite3_column_text(handle, column) else {
            return nil
        }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column))),
                      as: UTF8.self)
    }

    /// The current row's `column` as a number (nil when NULL).
    func double(_ column: Int32) -> Double? {
        sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : sqlite3_column_double(handle, column)
    }
}
