import DatabaseFile
import FermataCore
import Foundation
import GRDB

/// The alarms in the state database (table `alarm`, migration `v15-alarms`): every change is one transaction
/// committed with `synchronous=FULL`, so an alarm added, removed, switched or fired survives a power cut the moment
/// the call returns. Rows are written from checked `Alarm` values and read back through the same parsers; a row
/// that does not read (written by hand) is skipped and counted, never guessed at.
///
/// A value over the shared `FermataDatabase`; any task may call it (GRDB serialises the writes).
public struct AlarmStorage: Sendable {
    /// Why a change was refused.
    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case full
        case invalid(String)

        public var description: String {
            switch self {
            case .full: "at most \(Alarm.maxCount) alarms"
            case let .invalid(problem): problem
            }
        }
    }

    let database: FermataDatabase

    public init(database: FermataDatabase) { self.database = database }

    /// The alarms by id, and how many rows could not be read.
    public func load() async throws -> (alarms: [Alarm], unreadable: Int) {
        try await database.pool.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT id, time, repeats, source, volume, fade_seconds, enabled, last_fired FROM alarm ORDER BY id
                """)
            var alarms: [Alarm] = []
            for row in rows {
                guard let time = AlarmTime(parsing: row["time"] as String? ?? ""),
                      let repeats = AlarmRepeat(parsing: row["repeats"] as String? ?? ""),
                      let source = AlarmSource(parsing: row["source"] as String? ?? "") else { continue }
                let alarm = Alarm(id: row["id"], time: time, repeats: repeats, source: source, volume: row["volume"],
                                  fadeSeconds: row["fade_seconds"] as Int? ?? -1, enabled: row["enabled"] as Bool? ?? false,
                                  lastFired: row["last_fired"])
                if alarm.problem == nil { alarms.append(alarm) }
            }
            return (alarms, rows.count - alarms.count)
        }
    }

    /// Stores a new alarm; returns it with its id.
    public func add(_ alarm: Alarm, at time: Int64) async throws -> Alarm {
        if let problem = alarm.problem { throw Refusal.invalid(problem) }
        let id = try await durably { db -> Int64 in
            guard try Int.fetchOne(db, sql: "SELECT count(*) FROM alarm") ?? 0 < Alarm.maxCount else { throw Refusal.full }
            try db.execute(sql: """
                INSERT INTO alarm (time, repeats, source, volume, fade_seconds, enabled, last_fired, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [alarm.time.description, alarm.repeats.description, alarm.source.description,
                                 alarm.volume, alarm.fadeSeconds, alarm.enabled, alarm.lastFired, time])
            return db.lastInsertedRowID
        }
        var stored = alarm
        stored.id = id
        return stored
    }

    /// Removes alarm `id`; false when there was none.
    public func remove(id: Int64) async throws -> Bool {
        try await durably { db in
            try db.execute(sql: "DELETE FROM alarm WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    /// Switches alarm `id` on or off; false when there is none.
    public func setEnabled(id: Int64, _ enabled: Bool) async throws -> Bool {
        try await durably { db in
            try db.execute(sql: "UPDATE alarm SET enabled = ? WHERE id = ?", arguments: [enabled, id])
            return db.changesCount > 0
        }
    }

    /// Notes that alarm `id` played its firing at `at` (Unix seconds); a one-off alarm is switched off with it.
    public func markFired(id: Int64, at: Int64, disable: Bool) async throws {
        try await durably { db in
            try db.execute(sql: "UPDATE alarm SET last_fired = ?, enabled = enabled AND ? WHERE id = ?",
                           arguments: [at, !disable, id])
        }
    }

    /// One transaction, committed with `synchronous=FULL` (durable when it returns).
    private func durably<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await database.pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            defer { try? db.execute(sql: "PRAGMA synchronous = NORMAL") }
            var result: T?
            try db.inTransaction {
                result = try body(db)
                return .commit
            }
            guard let result else { throw Refusal.invalid("the transaction gave no result") }
            return result
        }
    }
}
