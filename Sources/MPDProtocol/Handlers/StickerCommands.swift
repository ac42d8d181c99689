/// The `sticker` command (MPD's per-object key/value store, backed by Fermata's custom metadata).
///
/// `sticker get|set|delete|list|find TYPE URI …`; answers `sticker: NAME=VALUE` lines (with `file:` before each
/// `find` hit). Stateless; run on the executing command's task.
enum StickerCommands {
    static func sticker(_ c: inout CommandContext) async throws {
        let operation = try parse(c)
        for match in try await c.backend.sticker(operation) {
            if c.response.isFull { break }
            if let uri = match.uri { c.response.line(objectKey(c.arguments[1]), uri) }
            c.response.line("sticker", "\(match.name)=\(match.value)")
        }
    }

    static func parse(_ c: CommandContext) throws(MPDError) -> StickerOperation {
        let args = c.arguments
        let (type, uri) = (args[1], try c.uri(2, unsafe: .noSuchSong()))
        switch (args[0], args.count) {
        case ("get", 4): return .get(type: type, uri: uri, name: args[3])
        case ("set", 5): return .set(type: type, uri: uri, name: args[3], value: args[4])
        case ("delete", 3): return .delete(type: type, uri: uri, name: nil)
        case ("delete", 4): return .delete(type: type, uri: uri, name: args[3])
        case ("list", 3): return .list(type: type, uri: uri)
        case ("find", 4): return .find(type: type, uri: uri, name: args[3], comparison: nil)
        case ("find", 6):
            guard let op = StickerComparison.Operator(rawValue: args[4]) else { throw .badArgument("bad operator") }
            return .find(type: type, uri: uri, name: args[3], comparison: StickerComparison(op, args[5]))
        default: throw .badArgument("bad request")
        }
    }

    /// The key that names a `find` hit: `file` for songs, the type's own name otherwise.
    static func objectKey(_ type: String) -> String { type == "song" ? "file" : type }
}
