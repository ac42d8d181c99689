import FermataCore
import Foundation
import GRDB

/// Cards bound with `fermata card` (table `card`) and the card whose music is in the queue (`card_active`), in the
/// state database. Written durably, as the rest of the player's state (a child's card keeps its volume cap after a
/// power cut).
extension StateStore {
    /// The assigned cards, oldest first; empty when the table cannot be read (logged).
    public func loadCards() async -> (cards: [CardBinding], active: String?) {
        do {
            return try await database.pool.read { db in
                let cards = try CardRecord.order(Column("assigned_at"), Column("id")).fetchAll(db).compactMap { row in
                    CardTarget(parsing: row.target).map {
                        CardBinding(id: row.id, target: $0, volumeMax: row.volumeMax, origin: "assigned")
                    }
                }
                let active = try String.fetchOne(db, sql: "SELECT id FROM card_active WHERE one = 1")
                return (cards, active)
            }
        } catch {
            logger.error("cannot read the assigned cards (\(error)); only the configuration's cards work")
            return ([], nil)
        }
    }

    /// Binds (or binds again) one card; true when it was saved durably.
    public func saveCard(_ card: CardBinding) async -> Bool {
        let record = CardRecord(id: card.id, target: card.target.description, volumeMax: card.volumeMax,
                                assignedAt: Int64(Date().timeIntervalSince1970))
        return await write { db in try record.upsert(db) }
    }

    /// Forgets an assigned card; true when it was there and is gone.
    public func forgetCard(_ id: String) async -> Bool {
        let found = (try? await database.pool.read { try CardRecord.exists($0, key: id) }) ?? false
        guard found else { return false }
        return await write { db in _ = try CardRecord.deleteOne(db, key: id) }
    }

    /// Saves which card's music is in the queue (nil: none).
    public func saveActiveCard(_ id: String?) async {
        _ = await write { db in
            if let id {
                try db.execute(sql: "INSERT OR REPLACE INTO card_active (one, id) VALUES (1, ?)", arguments: [id])
            } else {
                try db.execute(sql: "DELETE FROM card_active")
            }
        }
    }
}

/// One `card` row: a card bound with `fermata card`.
struct CardRecord: StateRecord {
    static let databaseTableName = "card"

    var id: String
    var target: String
    var volumeMax: Int?
    var assignedAt: Int64
}
