import DatabaseFile
import Library
import StateDatabase

extension DatabaseSchema {
    /// The file these tests open: the library's tables and the state's (queue, player state, outputs, cards), as the
    /// daemon's file has them without practice's (`DatabaseSchema.fermata` composes all three; `FermataSchemaTests`
    /// and `MigrationPinTests` in DaemonTests hold that whole file).
    static var stateFile: DatabaseSchema {
        var schema = DatabaseSchema.library
        schema.addStateTables()
        return schema
    }
}
