import GRDB

/// The outputs' enabled flags in the state database (table `output_state`, keyed by output name).
extension StateStore {
    /// Saved flags by output name; empty on a first start or when the table cannot be read.
    public func loadOutputStates() async -> [String: Bool] {
        do {
            let rows = try await database.pool.read { try OutputStateRecord.fetchAll($0) }
            return Dictionary(rows.map { ($0.name, $0.enabled) }, uniquingKeysWith: { $1 })
        } catch {
            logger.error("cannot read the saved output states (\(error)); using the configured ones")
            return [:]
        }
    }

    /// Saves one output's flag durably (before the protocol answers OK).
    public func saveOutputState(name: String, enabled: Bool) async {
        _ = await write { db in try OutputStateRecord(name: name, enabled: enabled).upsert(db) }
    }
}
