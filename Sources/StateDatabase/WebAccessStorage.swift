import DatabaseFile
import FermataCore
import GRDB

/// The web remote's passwords (hashes) and sessions in the state database (`web_password`, `web_session`, migration
/// `v12-web-access`): each write commits with `synchronous=FULL`, so a password set or a session ended survives a
/// power cut. Nothing here holds a secret in clear: the hashes come made (`PasswordHash` in the web remote).
///
/// A value over the shared `FermataDatabase`; any task may call it (GRDB serialises the writes).
public struct WebAccessStorage: WebAccessStore {
    let database: FermataDatabase

    public init(database: FermataDatabase) { self.database = database }

    public func webPasswordHash(for role: WebRole) async throws -> String? {
        try await database.pool.read { db in
            try String.fetchOne(db, sql: "SELECT hash FROM web_password WHERE role = ?", arguments: [role.rawValue])
        }
    }

    public func setWebPasswordHash(_ hash: String?, for role: WebRole, at time: Int64) async throws {
        try await durably { db in
            if let hash {
                try db.execute(sql: "INSERT OR REPLACE INTO web_password (role, hash, set_at) VALUES (?, ?, ?)",
                               arguments: [role.rawValue, hash, time])
            } else {
                try db.execute(sql: "DELETE FROM web_password WHERE role = ?", arguments: [role.rawValue])
            }
            try db.execute(sql: "DELETE FROM web_session WHERE role = ?", arguments: [role.rawValue])
        }
    }

    public func webSessions() async throws -> [WebSessionRecord] {
        try await database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT id, token_hash, role, created_at, used_at FROM web_session").compactMap { row in
                guard let role = WebRole(rawValue: row["role"]) else { return nil }
                return WebSessionRecord(id: row["id"], tokenHash: row["token_hash"], role: role,
                                        createdAt: row["created_at"], usedAt: row["used_at"])
            }
        }
    }

    public func saveWebSession(_ session: WebSessionRecord) async throws {
        try await durably { db in
            try db.execute(sql: """
                INSERT OR REPLACE INTO web_session (id, token_hash, role, created_at, used_at) VALUES (?, ?, ?, ?, ?)
                """, arguments: [session.id, session.tokenHash, session.role.rawValue, session.createdAt, session.usedAt])
        }
    }

    public func deleteWebSessions(ids: [String]) async throws {
        guard !ids.isEmpty else { return }
        try await durably { db in
            for id in ids { try db.execute(sql: "DELETE FROM web_session WHERE id = ?", arguments: [id]) }
        }
    }

    /// One transaction, committed with `synchronous=FULL` (durable when it returns).
    private func durably(_ body: @escaping @Sendable (Database) throws -> Void) async throws {
        try await database.pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            defer { try? db.execute(sql: "PRAGMA synchronous = NORMAL") }
            try db.inTransaction {
                try body(db)
                return .commit
            }
        }
    }
}
