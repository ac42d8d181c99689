import FermataCore
import Foundation
import GRDB

/// What the owner added to a track: play count, last played, rating, practice time, preferred tempo. Keyed by the
/// track's identity, so it follows the audio through moves and renames and survives the file's absence.
///
/// A value type; safe to pass anywhere.
public struct TrackMetadata: Sendable, Hashable {
    public var playCount = 0
    public var lastPlayed: Date?
    /// 0–10, as MPD clients store ratings; nil = not rated.
    public var rating: Int?
    /// Seconds spent practising the track (looping it, playing it slowed down…).
    public var practiceSeconds = 0.0
    /// Preferred playback tempo as a factor of the recorded one (1 = as recorded); nil = none.
    public var preferredTempo: Double?

    public init() {}
}

/// A loop region saved for a track (frames of the track's own sample rate), with a name such as "solo".
public struct SavedLoop: Sendable, Hashable, Identifiable {
    public var id: Int64
    public var name: String
    public var region: LoopRegion
}

/// Reads and writes custom metadata, loop regions and stickers by identity.
///
/// Stateless; called inside GRDB `read`/`write` blocks.
enum MetadataStore {
    static func metadata(_ db: Database, identity: Int64) throws -> TrackMetadata {
        var metadata = TrackMetadata()
        guard let row = try Row.fetchOne(db, sql: """
            SELECT play_count, last_played, rating, practice_seconds, preferred_tempo
            FROM track_metadata WHERE identity_id = ?
            """, arguments: [identity]) else { return metadata }
        metadata.playCount = row[0]
        metadata.lastPlayed = (row[1] as Int64?).map { Date(timeIntervalSince1970: Double($0)) }
        metadata.rating = row[2]
        metadata.practiceSeconds = row[3]
        metadata.preferredTempo = row[4]
        return metadata
    }

    static func save(_ db: Database, _ metadata: TrackMetadata, identity: Int64) throws {
        try db.execute(sql: """
            INSERT OR REPLACE INTO track_metadata
                (identity_id, play_count, last_played, rating, practice_seconds, preferred_tempo)
            VALUES (?, ?, ?, ?, ?, ?)
            """, arguments: [identity, metadata.playCount,
                             metadata.lastPlayed.map { Int64($0.timeIntervalSince1970.rounded()) },
                             metadata.rating, metadata.practiceSeconds, metadata.preferredTempo])
    }

    static func loops(_ db: Database, identity: Int64) throws -> [SavedLoop] {
        try Row.fetchAll(db, sql: """
            SELECT id, name, start_frame, end_frame, repeat_count FROM loop_region WHERE identity_id = ? ORDER BY id
            """, arguments: [identity]).map {
            SavedLoop(id: $0[0], name: $0[1], region: LoopRegion(start: $0[2], end: $0[3], repeatCount: $0[4]))
        }
    }

    static func addLoop(_ db: Database, name: String, region: LoopRegion, identity: Int64) throws -> SavedLoop {
        try db.execute(sql: """
            INSERT INTO loop_region (identity_id, name, start_frame, end_frame, repeat_count, created_at)
            VALUES (?, ?, ?, ?, ?, ?)
            """, arguments: [identity, name, region.start, region.end, region.repeatCount,
                             Int64(Date().timeIntervalSince1970)])
        return SavedLoop(id: db.lastInsertedRowID, name: name, region: region)
    }

    static func sticker(_ db: Database, identity: Int64, name: String) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM sticker WHERE identity_id = ? AND name = ?",
                            arguments: [identity, name])
    }

    static func stickers(_ db: Database, identity: Int64) throws -> [String: String] {
        var result: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT name, value FROM sticker WHERE identity_id = ? ORDER BY name",
                                    arguments: [identity]) {
            result[row[0]] = row[1]
        }
        return result
    }

    /// `(path, value)` of every track at or below `directory` with sticker `name` (MPD `sticker find`).
    static func findStickers(_ db: Database, name: String, under directory: String) throws -> [(String, String)] {
        let (condition, arguments) = LibrarySearch.whereClause([TagFilter(.base, directory)], match: .exact)
        return try Row.fetchAll(db, sql: """
            SELECT track.path, sticker.value FROM sticker JOIN track ON track.identity_id = sticker.identity_id
            WHERE sticker.name = ? AND \(condition) ORDER BY track.path
            """, arguments: [name] + arguments).map { ($0[0], $0[1]) }
    }
}
