/// The trailing options of `find`/`search`/`findadd`/`searchadd` and (MPD 0.24) `playlistfind`/`playlistsearch`:
/// `[sort [-]TAG] [window START:END] [position POS]`, taken off the end of the argument list as MPD does, leaving the
/// filter arguments.
///
/// Pure; callable anywhere.
struct MatchArguments {
    var query: SongQuery
    var position: QueueInsertPosition

    init(_ c: CommandContext, foldCase: Bool, allowPosition: Bool) throws(MPDError) {
        var rest = c.arguments[...]
        func takeOption(_ name: String) -> String? {
            guard rest.count >= 3, rest[rest.endIndex - 2] == name else { return nil }
            defer { rest = rest.dropLast(2) }
            return rest.last
        }
        position = .end
        if allowPosition, let text = takeOption("position") {
            position = try ArgumentParser.insertPosition(text)
        }
        let window = try takeOption("window").map { text throws(MPDError) in try ArgumentParser.range(text) }
        let sort = try takeOption("sort").map { text throws(MPDError) in try Self.sort(text) }
        query = SongQuery(filter: try SongFilterParser.parse(rest, foldCase: foldCase), sort: sort, window: window)
    }

    static func sort(_ text: String) throws(MPDError) -> SongSort {
        let descending = text.hasPrefix("-")
        let name = descending ? String(text.dropFirst()) : text
        if name.lowercased() == "last-modified" { return SongSort(.lastModified, descending: descending) }
        if name.lowercased() == "added" { return SongSort(.added, descending: descending) }
        guard let tag = TagType(name: name) else { throw .badArgument("Unknown sort tag") }
        return SongSort(.tag(tag), descending: descending)
    }
}
