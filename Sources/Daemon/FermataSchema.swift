import DatabaseFile
import Library
import Practice
import Recording
import StateDatabase

extension DatabaseSchema {
    /// The whole state database file as fermatad opens it: the library's tables, then the state's (queue, player
    /// state, outputs, cards) with practice's inserted where they shipped. Each module owns its migrations; this is
    /// the one place that puts them in one file (`FermataSchemaTests` pins the order).
    public static var fermata: DatabaseSchema {
        var schema = DatabaseSchema.library
        schema.addStateTables()
        schema.addPracticeTables()
        schema.addRecordingTables()
        return schema
    }
}
