/// The sticker commands (MPD's per-object key/value store, backed by Fermata's custom metadata): `sticker
/// get|set|inc|dec|delete|list|find TYPE URI …`, and MPD 0.24's `stickernames`, `stickertypes`, `stickernamestypes`.
///
/// Fermata keeps stickers on songs only: the `song` domain; MPD 0.24's `playlist`, `filter` and tag domains are
/// refused as unknown. `sticker find` takes MPD 0.24's operators, `sort` and `window`, applied here over the
/// backend's matches. Stateless; run on the executing command's task.
enum StickerCommands {
    static func sticker(_ c: inout CommandContext) async throws {
        let request = try parse(c)
        var matches = try await c.backend.sticker(request.operation)
        if let sort = request.sort { matches.sort { sort.ordered($0, $1) } }
        if let window = request.window { matches = Array(matches[window.clamped(to: matches.count)]) }
        for match in matches {
            if c.response.isFull { break }
            if let uri = match.uri { c.response.line("file", uri) }
            c.response.line("sticker", "\(match.name)=\(match.value)")
        }
    }

    /// `stickernames`: every sticker name in use, sorted.
    static func names(_ c: inout CommandContext) async throws {
        for match in try await c.backend.sticker(.names) {
            if c.response.isFull { break }
            c.response.line("name", match.name)
        }
    }

    /// `stickertypes`: the sticker domains kept here (songs only).
    static func types(_ c: inout CommandContext) async throws { c.response.line("stickertype", "song") }

    /// `stickernamestypes [TYPE]`: each sticker name with its domain; MPD's other domains hold none here.
    static func namesTypes(_ c: inout CommandContext) async throws {
        if let type = c.argument(0), type != "song" {
            guard ["playlist", "filter"].contains(type) || TagType(name: type) != nil else {
                throw MPDError.badArgument("no such tag \(quoted(type))")
            }
            return
        }
        for match in try await c.backend.sticker(.names) {
            if c.response.isFull { break }
            c.response.line("name", match.name)
            c.response.line("type", "song")
        }
    }

    /// A parsed `sticker` command: the backend's operation, and for `find` the order and window of the answer.
    struct Request {
        var operation: StickerOperation
        var sort: StickerSort?
        var window: PositionRange?
    }

    /// MPD 0.24's `handle_sticker`: the domain first, then the sub-command by its argument count.
    static func parse(_ c: CommandContext) throws(MPDError) -> Request {
        var args = c.arguments
        let type = args[1]
        guard type == "song" else { throw .badArgument("unknown sticker domain \(quoted(type))") }
        let uri = try c.uri(2, unsafe: args[0] == "find" ? .notFound("No such directory") : .noSuchSong())
        switch (args[0], args.count) {
        case ("get", 4): return Request(operation: .get(type: type, uri: uri, name: args[3]))
        case ("list", 3): return Request(operation: .list(type: type, uri: uri))
        case ("set", 5):
            guard !args[3].isEmpty else { throw .badArgument("empty sticker name") }
            return Request(operation: .set(type: type, uri: uri, name: args[3], value: args[4]))
        case ("inc", 5), ("dec", 5):
            guard !args[3].isEmpty else { throw .badArgument("empty sticker name") }
            let amount = try ArgumentParser.int(args[4])
            let delta = args[0] == "inc" ? amount : -amount
            // As MPD's SQL: a missing sticker is created with the value given, for `dec` too.
            return Request(operation: .add(type: type, uri: uri, name: args[3], delta: delta, ifMissing: amount))
        case ("delete", 3): return Request(operation: .delete(type: type, uri: uri, name: nil))
        case ("delete", 4): return Request(operation: .delete(type: type, uri: uri, name: args[3]))
        case ("find", 4...):
            var request = Request(operation: .list(type: type, uri: uri))
            if args.count >= 6, args[args.count - 2] == "window" {
                request.window = try ArgumentParser.range(args[args.count - 1])
                args.removeLast(2)
            }
            if args.count >= 6, args[args.count - 2] == "sort" {
                request.sort = try StickerSort(args[args.count - 1])
                args.removeLast(2)
            }
            var comparison: StickerComparison?
            if args.count > 4 {
                guard args.count == 6 else { throw .badArgument("bad request") }
                guard let op = StickerComparison.Operator(rawValue: args[4]) else {
                    throw .badArgument("bad operator \(quoted(args[4]))")
                }
                comparison = StickerComparison(op, args[5])
            }
            request.operation = .find(type: type, uri: uri, name: args[3], comparison: comparison)
            return request
        default: throw .badArgument("bad request")
        }
    }

    /// A string as MPD's `{:?}` format prints it: in double quotes, `"` and `\` escaped.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for character in text {
            if character == "\"" || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result + "\""
    }
}

/// `sticker find … sort [-]uri|value|value_int` (MPD 0.24): the order of the hits.
///
/// A plain value; usable anywhere.
struct StickerSort {
    enum Key: String {
        case uri
        case value
        /// The value as SQLite's `CAST(value AS INT)` reads it.
        case valueInt = "value_int"
    }

    var key: Key
    var descending: Bool

    init(_ text: String) throws(MPDError) {
        descending = text.hasPrefix("-")
        let name = descending ? String(text.dropFirst()) : text
        guard let key = Key(rawValue: name) else {
            throw .badArgument("Unknown sort tag \(StickerCommands.quoted(name))")
        }
        self.key = key
    }

    func ordered(_ a: StickerMatch, _ b: StickerMatch) -> Bool { descending ? ascending(b, a) : ascending(a, b) }

    private func ascending(_ a: StickerMatch, _ b: StickerMatch) -> Bool {
        switch key {
        case .uri: (a.uri ?? "") < (b.uri ?? "")
        case .value: a.value < b.value
        case .valueInt: StickerComparison.integer(a.value) < StickerComparison.integer(b.value)
        }
    }
}
