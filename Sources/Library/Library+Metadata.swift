import FermataCore
import Foundation
import GRDB

/// Custom metadata, saved loops and MPD stickers, addressed by track path and stored by identity: they follow the
/// audio through moves and renames and come back when a vanished file returns.
///
/// Same contract as `Library`: callable from any task.
extension Library {
    /// The custom metadata of the track at `path` (defaults when nothing was recorded).
    public func metadata(path: String) async throws -> TrackMetadata {
        try await database.pool.read { db in try MetadataStore.metadata(db, identity: identity(db, path)) }
    }

    /// The custom metadata of an identity (also while its file is missing).
    public func metadata(identity: Int64) async throws -> TrackMetadata {
        try await database.pool.read { db in try MetadataStore.metadata(db, identity: identity) }
    }

    /// Changes the track's metadata in one transaction and returns the result. Ratings must be 0–10, practice time
    /// and play count non-negative, tempo positive.
    @discardableResult
    public func updateMetadata(
        path: String, _ change: @escaping @Sendable (inout TrackMetadata) -> Void
    ) async throws -> TrackMetadata {
        try await database.pool.write { db in
            let id = try identity(db, path)
            var metadata = try MetadataStore.metadata(db, identity: id)
            change(&metadata)
            try Self.validate(metadata)
            try MetadataStore.save(db, metadata, identity: id)
            return metadata
        }
    }

    /// Counts one play of the track, heard at `date`.
    public func recordPlay(path: String, at date: Date = Date()) async throws {
        try await updateMetadata(path: path) { metadata in
            metadata.playCount += 1
            metadata.lastPlayed = date
        }
    }

    /// Adds practice time to the track.
    public func addPracticeTime(path: String, seconds: Double) async throws {
        try await updateMetadata(path: path) { $0.practiceSeconds += max(0, seconds) }
    }

    /// The loop regions saved for the track, oldest first.
    public func loops(path: String) async throws -> [SavedLoop] {
        try await database.pool.read { db in try MetadataStore.loops(db, identity: identity(db, path)) }
    }

    /// Saves a loop region for the track.
    public func saveLoop(path: String, name: String, region: LoopRegion) async throws -> SavedLoop {
        guard region.start >= 0, region.end > region.start else {
            throw LibraryError.invalidValue("loop \(region) is empty or negative")
        }
        return try await database.pool.write { db in
            try MetadataStore.addLoop(db, name: name, region: region, identity: identity(db, path))
        }
    }

    /// Deletes a saved loop (no error when it does not exist).
    public func deleteLoop(id: Int64) async throws {
        try await database.pool.write { db in
            try db.execute(sql: "DELETE FROM loop_region WHERE id = ?", arguments: [id])
        }
    }

    // MARK: Stickers (MPD `sticker` commands, type "song")

    /// The value of sticker `name` on the track, or nil.
    public func sticker(path: String, name: String) async throws -> String? {
        try await database.pool.read { db in try MetadataStore.sticker(db, identity: identity(db, path), name: name) }
    }

    /// All stickers on the track.
    public func stickers(path: String) async throws -> [String: String] {
        try await database.pool.read { db in try MetadataStore.stickers(db, identity: identity(db, path)) }
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
            let value = change(try MetadataStore.sticker(db, identity: id, name: name))
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
            try MetadataStore.findStickers(db, name: name, under: directory).map { (path: $0.0, value: $0.1) }
        }
    }

    private static func validate(_ metadata: TrackMetadata) throws {
        if let rating = metadata.rating, !(0...10).contains(rating) {
            throw LibraryError.invalidValue("rating \(rating) (0–10)")
        }
        if metadata.playCount < 0 { throw LibraryError.invalidValue("play count \(metadata.playCount)") }
        if metadata.practiceSeconds < 0 || !metadata.practiceSeconds.isFinite {
            throw LibraryError.invalidValue("practice time \(metadata.practiceSeconds)")
        }
        if let tempo = metadata.preferredTempo, !(tempo > 0 && tempo.isFinite) {
            throw LibraryError.invalidValue("tempo \(tempo)")
        }
    }
}
