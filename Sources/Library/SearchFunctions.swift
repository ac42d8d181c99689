import GRDB

/// SQL functions the searches need, added to every connection of the state database by `DatabaseSchema.library`.
///
/// Stateless; SQLite calls them on whichever connection runs the query.
enum SearchFunctions {
    /// `fermata_fold(text)`: the text in lower case (Unicode-aware, unlike SQLite's ASCII-only `lower`), for MPD's
    /// case-insensitive `search`. NULL stays NULL.
    static let fold = DatabaseFunction("fermata_fold", argumentCount: 1, pure: true) { values in
        String.fromDatabaseValue(values[0]).map(foldText)
    }

    /// The folding `fermata_fold` applies.
    static func foldText(_ text: String) -> String {
        text.lowercased()
    }
}
