import DatabaseFile
import Library
import Practice
import StateDatabase

extension DatabaseSchema {
    /// The file these tests open: the library's tables, the state's and practice's inserted where they shipped — the
    /// daemon's whole file (`DatabaseSchema.fermata`, whose order `FermataSchemaTests` pins), composed here so the
    /// practice tests need not link the daemon.
    static var practiceFile: DatabaseSchema {
        var schema = DatabaseSchema.library
        schema.addStateTables()
        schema.addPracticeTables()
        return schema
    }
}
