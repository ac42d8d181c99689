import FermataCore
import Foundation
import GRDB

/// Reads and writes stickers by identity.
///
/// Stateless; called inside GRDB `read`/`write` blocks.
enum StickerStore {
    static func sticker(_ db: Database, identity: Int64, name: String) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM sticker WHERE identity_id = ? AND name = ?",
                            arguments: [identity, name])
    }

    static func stickers(_ db: Database, identity: Int64) throws -> [String: String] {
        var result: [String: String] = [:]
        for sticker in try StickerRecord.fetchAll(
            db, sql: "SELECT name, value FROM sticker WHERE identity_id = ? ORDER BY name", arguments: [identity]
        ) {
            result[sticker.name] = sticker.value
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

/// A `sticker` row's name and value, as `StickerStore.stickers` reads them.
private struct StickerRecord: Decodable, FetchableRecord {
    var name: String
    var value: String
}
