import GRDB

/// The outputs' enabled flags in the state database (table `output_state`, keyed by output name).
extension StateStore {
    /// Saved flags by output name; empty on a first start or when the table cannot be read.
    public func loadOutputStates() async -> [String: Bool] {
        do {
            return try await database.pool.read { db in
                var states: [String: Bool] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT name, enabled FROM output_state") {
                    states[row["name"]] = row["enabled"]
                }
                return states
            }
        } catch {
            logger.error("cannot read the saved output states (\(error)); using the configured ones")
            return [:]
        }
    }

    /// Saves one output's flag durably (before the protocol answers OK).
    public func saveOutputState(name: String, enabled: Bool) async {
        _ = await write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO output_state (name, enabled) VALUES (?, ?)",
                           arguments: [name, enabled])
        }
    }
}
