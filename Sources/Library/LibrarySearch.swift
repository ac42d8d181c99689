import Foundation
import GRDB

/// One row of `Library.list`: a distinct tag value, under the values of the tags it was grouped by.
public struct TagListRow: Sendable, Hashable {
    /// Values of the `groupedBy` tags, in their order (nil where a track lacks the tag).
    public var groups: [String?]
    public var value: String

    public init(groups: [String?], value: String) {
        self.groups = groups
        self.value = value
    }
}

/// Songs and total playing time of a set of tracks (MPD's `count`), under a group value when grouped.
public struct TrackCount: Sendable, Hashable {
    public var group: String?
    public var songs: Int
    /// Seconds.
    public var playtime: Double
}

/// The queries behind find, search, list, count and full-text search, as SQL over one connection.
///
/// Stateless; called inside GRDB `read` blocks (any reader connection).
enum LibrarySearch {
    /// How filter values compare.
    enum Match {
        /// Exact, case-sensitive (MPD `find`).
        case exact
        /// Case-insensitive substring (MPD `search`).
        case substring
    }

    static func tracks(_ db: Database, _ filters: [TagFilter], match: Match, limit: Int?) throws -> [Track] {
        let (condition, arguments) = whereClause(filters, match: match)
        var sql = "SELECT \(Track.columns) FROM track WHERE \(condition) ORDER BY track.path"
        if let limit { sql += " LIMIT \(max(0, limit))" }
        return try Track.fetchAll(db, sql: sql, arguments: arguments)
    }

    /// Distinct non-empty values of `tag` among tracks matching `filters` (exact), grouped by `groups`.
    static func list(
        _ db: Database, _ tag: TrackTag, filters: [TagFilter], groupedBy groups: [TrackTag]
    ) throws -> [TagListRow] {
        let (condition, arguments) = whereClause(filters, match: .exact)
        let columns = (groups + [tag]).map(\.column)
        let sql = """
            SELECT DISTINCT \(columns.joined(separator: ", ")) FROM track
            WHERE (\(condition)) AND \(tag.column) IS NOT NULL AND \(tag.column) != ''
            ORDER BY \(columns.joined(separator: ", "))
            """
        return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            TagListRow(groups: (0..<groups.count).map { row[$0] }, value: row[groups.count])
        }
    }

    /// Songs and playtime of tracks matching `filters` (exact), per value of `group` when given.
    static func count(_ db: Database, _ filters: [TagFilter], groupedBy group: TrackTag?) throws -> [TrackCount] {
        let (condition, arguments) = whereClause(filters, match: .exact)
        guard let group else {
            let row = try Row.fetchOne(db, sql: """
                SELECT count(*), total(duration) FROM track WHERE \(condition)
                """, arguments: arguments)
            return [TrackCount(group: nil, songs: row?[0] ?? 0, playtime: row?[1] ?? 0)]
        }
        return try Row.fetchAll(db, sql: """
            SELECT \(group.column) AS value, count(*), total(duration) FROM track WHERE \(condition)
            GROUP BY value ORDER BY value
            """, arguments: arguments).map { TrackCount(group: $0[0], songs: $0[1], playtime: $0[2]) }
    }

    /// FTS5 search over title, artist, album and path: every word must match the start of a token (prefix
    /// matching; diacritics ignored), best matches first. Words are cut where the tokenizer cuts, each one quoted, so
    /// user text never becomes FTS5 syntax.
    static func fullText(_ db: Database, _ text: String, limit: Int) throws -> [Track] {
        let words = tokens(text)
        guard !words.isEmpty else { return [] }
        let query = words.map { "\"\($0)\"*" }.joined(separator: " ")
        return try Track.fetchAll(db, sql: """
            SELECT \(Track.columns) FROM track_fts JOIN track ON track.id = track_fts.rowid
            WHERE track_fts MATCH ? ORDER BY bm25(track_fts), track.path LIMIT ?
            """, arguments: [query, limit])
    }

    /// The words of `text` as the index's tokenizer (`unicode61`) cuts them: composed first (NFC: an accent typed as a
    /// letter and a combining mark, as macOS and some phones send it, becomes the accented letter), then cut at every
    /// scalar that is not a letter, a digit or a private-use character (unicode61's token characters: L*, N*, Co). A
    /// word the index would cut in two must not reach it as one quoted term: with `detail=none` that is a phrase query,
    /// which FTS5 refuses ("phrase queries are not supported"), and the search answered an error (schemathesis sent
    /// combining marks; a decomposed "é" did the same).
    static func tokens(_ text: String) -> [String] {
        var words: [String] = []
        var word = String.UnicodeScalarView()
        for scalar in text.precomposedStringWithCanonicalMapping.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                 .decimalNumber, .letterNumber, .otherNumber, .privateUse:
                word.append(scalar)
            default:
                if !word.isEmpty { words.append(String(word)) }
                word = String.UnicodeScalarView()
            }
        }
        if !word.isEmpty { words.append(String(word)) }
        return words
    }

    /// The condition (on a `path` column) for paths below `directory`: from "a/b/" up to, not including, "a/b0" ('0'
    /// follows '/' in byte order, so "a/b-c" and "a/b0" stay out); below "" (the top), every non-empty path.
    static func below(_ directory: String) -> (String, StatementArguments) {
        directory.isEmpty ? ("path != ''", []) : ("path >= ? AND path < ?", [directory + "/", directory + "0"])
    }

    /// An SQL condition (and its arguments) requiring every filter.
    static func whereClause(_ filters: [TagFilter], match: Match) -> (String, StatementArguments) {
        var parts: [String] = []
        var arguments: StatementArguments = []
        for filter in filters {
            switch filter.field {
            case .base:
                guard !filter.value.isEmpty else { continue }
                let (range, values) = below(filter.value)
                parts.append("(\(range))")
                arguments += values
            case .file:
                parts.append(match == .exact ? "track.path = ?" : "instr(fermata_fold(track.path), ?) > 0")
                arguments += [match == .exact ? filter.value : SearchFunctions.foldText(filter.value)]
            case let .tag(tag):
                parts.append(match == .exact ? "\(tag.column) = ?" : "instr(fermata_fold(\(tag.column)), ?) > 0")
                arguments += [match == .exact ? filter.value : SearchFunctions.foldText(filter.value)]
            case .any:
                let columns = TrackTag.allCases.map(\.column)
                if match == .exact {
                    parts.append("? IN (" + columns.joined(separator: ", ") + ")")
                    arguments += [filter.value]
                } else {
                    let all = (columns + ["track.path"]).map { "coalesce(\($0), '')" }
                        .joined(separator: " || char(10) || ")
                    parts.append("instr(fermata_fold(\(all)), ?) > 0")
                    arguments += [SearchFunctions.foldText(filter.value)]
                }
            }
        }
        return (parts.isEmpty ? "1" : parts.joined(separator: " AND "), arguments)
    }
}
