import FermataCore
import Foundation
import GRDB

/// MPD stickers, addressed by track path and stored by identity: they follow the audio through moves and renames and
/// come back when a vanished file returns. (Practice data — time, the last loop and tempo — is the state database's,
/// in the daemon's practice tables, keyed by the same identity.)
///
/// Same contract as `Library`: callable from any task.
extension Library {
    /// The value of sticker `name` on the track, or nil.
    public func sticker(path: String, name: String) async throws -> String? {
        try await database.pool.read { db in try StickerStore.sticker(db, identity: identity(db, path), name: name) }
    }

    /// All stickers on the track.
    public func stickers(path: String) async throws -> [String: String] {
        try await database.pool.read { db in try StickerStore.stickers(db, identity: identity(db, path)) }
    }

    /// Sets sticker `name` on the track.
    public func setSticker(path: String, name: String, value: String) async throws {
        try await database.pool.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO sticker (identity_id, name, value) VALUES (?, ?, ?)",
                           arguments: [identity(db, path), name, value])
        }
    }

    /// Deletes sticker `name` (or every sticker when nil) from the track; returns whether anything was deleted.
    @discardableResult
    public func deleteSticker(path: String, name: String?) async throws -> Bool {
        try await database.pool.write { db in
            let id = try identity(db, path)
            if let name {
                try db.execute(sql: "DELETE FROM sticker WHERE identity_id = ? AND name = ?", arguments: [id, name])
            } else {
                try db.execute(sql: "DELETE FROM sticker WHERE identity_id = ?", arguments: [id])
            }
            return db.changesCount > 0
        }
    }

    /// Changes sticker `name` on the track in one transaction (MPD 0.24's `sticker inc`/`dec`): `change` gets the
    /// current value (nil when missing) and returns the new one.
    public func updateSticker(path: String, name: String, _ change: @escaping @Sendable (String?) -> String)
        async throws
    {
        try await database.pool.write { db in
            let id = try identity(db, path)
            let value = change(try StickerStore.sticker(db, identity: id, name: name))
            try db.execute(sql: "INSERT OR REPLACE INTO sticker (identity_id, name, value) VALUES (?, ?, ?)",
                           arguments: [id, name, value])
        }
    }

    /// Every sticker name in use, sorted (MPD 0.24's `stickernames`).
    public func stickerNames() async throws -> [String] {
        try await database.pool.read { db in
            try String.fetchAll(db, sql: "SELECT DISTINCT name FROM sticker ORDER BY name")
        }
    }

    /// Tracks at or below `directory` ("" = all) carrying sticker `name`, with its value (MPD `sticker find`).
    public func findStickers(
        name: String, under directory: String = ""
    ) async throws -> [(path: String, value: String)] {
        try await database.pool.read { db in
            try StickerStore.findStickers(db, name: name, under: directory).map { (path: $0.0, value: $0.1) }
        }
    }
}
