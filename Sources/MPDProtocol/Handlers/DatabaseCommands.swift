/// Handlers for the music database: searching, listing, browsing, counting, updating.
///
/// Stateless; run on the executing command's task.
enum DatabaseCommands {
    static func find(_ c: inout CommandContext) async throws { try await match(&c, foldCase: false) }
    static func search(_ c: inout CommandContext) async throws { try await match(&c, foldCase: true) }
    static func findAdd(_ c: inout CommandContext) async throws { try await matchAdd(c, foldCase: false) }
    static func searchAdd(_ c: inout CommandContext) async throws { try await matchAdd(c, foldCase: true) }

    static func match(_ c: inout CommandContext, foldCase: Bool) async throws {
        let arguments = try MatchArguments(c, foldCase: foldCase, allowPosition: false)
        c.printSongs(try await c.backend.songs(arguments.query))
    }

    static func matchAdd(_ c: CommandContext, foldCase: Bool) async throws {
        let arguments = try MatchArguments(c, foldCase: foldCase, allowPosition: true)
        try await c.backend.editQueue(.add(.matching(arguments.query), at: arguments.position))
    }

    /// `list TYPE [FILTER] [group TAG]...`, also the legacy `list album ARTIST`.
    static func list(_ c: inout CommandContext) async throws {
        let request = try listRequest(c.arguments)
        var previous: [String]?
        for row in try await c.backend.tagValues(request) {
            if c.response.isFull { break }
            let firstChanged = previous.map { old in zip(old, row.groups).prefix { $0 == $1 }.count } ?? 0
            for level in firstChanged..<row.groups.count {
                c.response.line(request.groups[level].rawValue, row.groups[level])
            }
            previous = row.groups
            c.response.line(listKeyName(request.key), row.value)
        }
    }

    static func listRequest(_ arguments: [String]) throws(MPDError) -> TagListRequest {
        let key: ListKey
        if arguments[0].lowercased() == "file" {
            key = .file
        } else {
            guard let tag = TagType(name: arguments[0]) else { throw .badArgument("Unknown tag type: \(arguments[0])") }
            key = .tag(tag)
        }
        var rest = arguments.dropFirst()
        var groups: [TagType] = []
        while rest.count >= 2, rest[rest.endIndex - 2] == "group", let name = rest.last {
            guard let group = TagType(name: name) else { throw .badArgument("Unknown tag type: \(name)") }
            guard key != .tag(group), !groups.contains(group) else { throw .badArgument("Conflicting group") }
            groups.append(group)
            rest = rest.dropLast(2)
        }
        if rest.count == 1, let value = rest.first, !value.hasPrefix("(") {
            guard key == .tag(.album) else { throw .badArgument("should be \"Album\" for 3 arguments") }
            return TagListRequest(key: key, filter: .string(.tag(.artist), StringMatch(.equals, value)), groups: groups)
        }
        let filter = rest.isEmpty ? nil : try SongFilterParser.parse(rest, foldCase: false)
        return TagListRequest(key: key, filter: filter, groups: groups)
    }

    static func listKeyName(_ key: ListKey) -> String {
        switch key {
        case let .tag(tag): tag.rawValue
        case .file: "file"
        }
    }

    static func count(_ c: inout CommandContext) async throws { try await count(&c, foldCase: false) }
    /// `searchcount` (MPD 0.24): `count` with case-insensitive matching.
    static func searchCount(_ c: inout CommandContext) async throws { try await count(&c, foldCase: true) }

    /// `count FILTER [group TAG]` (the filter may be omitted when grouping).
    static func count(_ c: inout CommandContext, foldCase: Bool) async throws {
        var rest = c.arguments[...]
        var group: TagType?
        if rest.count >= 2, rest[rest.endIndex - 2] == "group", let name = rest.last {
            guard let tag = TagType(name: name) else { throw MPDError.badArgument("Unknown tag type: \(name)") }
            group = tag
            rest = rest.dropLast(2)
        }
        let filter = rest.isEmpty ? nil : try SongFilterParser.parse(rest, foldCase: foldCase)
        for row in try await c.backend.count(filter, groupBy: group) {
            if c.response.isFull { break }
            if let group, let value = row.group { c.response.line(group.rawValue, value) }
            c.response.line("songs", row.songs)
            c.response.line("playtime", row.playtime)
        }
    }

    static func lsinfo(_ c: inout CommandContext) async throws { try await browse(&c, recursive: false, full: true) }
    static func listAll(_ c: inout CommandContext) async throws { try await browse(&c, recursive: true, full: false) }
    static func listAllInfo(_ c: inout CommandContext) async throws {
        try await browse(&c, recursive: true, full: true)
    }

    /// With the `hide_playlists_in_root` protocol feature, `lsinfo` of the root leaves out the stored playlists.
    static func browse(_ c: inout CommandContext, recursive: Bool, full: Bool) async throws {
        let uri = c.argument(0) == nil ? "" : try c.uri(0)
        let hidePlaylists = c.client.protocolFeatures.contains(.hidePlaylistsInRoot)
        guard recursive, let cache = c.backend.listingCache else {
            try await render(&c.response, c, uri: uri, recursive: recursive, full: full, hidePlaylists: hidePlaylists)
            return
        }
        let key = ListingCache.Key(uri: uri, full: full, tags: c.client.tagTypes, hidePlaylists: hidePlaylists)
        if let cached = cache.lookup(key) {
            c.response.append(bytes: cached)
            return
        }
        let version = cache.currentVersion
        var answer = Response(limit: c.response.limit - c.response.bytes.count)
        try await render(&answer, c, uri: uri, recursive: true, full: full, hidePlaylists: hidePlaylists)
        if !answer.isFull { cache.store(key, version: version, bytes: answer.bytes) }
        c.response.append(answer)
    }

    private static func render(_ response: inout Response, _ c: CommandContext, uri: String, recursive: Bool, full: Bool,
                               hidePlaylists: Bool) async throws {
        for entry in try await c.backend.browse(uri, recursive: recursive) {
            if response.isFull { break }
            if hidePlaylists, case .playlist = entry { continue }
            response.directoryEntry(entry, tags: c.client.tagTypes, full: full)
        }
    }

    static func listFiles(_ c: inout CommandContext) async throws {
        let uri = c.argument(0) == nil ? "" : try c.uri(0)
        for file in try await c.backend.files(in: uri) {
            if c.response.isFull { break }
            c.response.line(file.isDirectory ? "directory" : "file", file.name)
            if let size = file.size, !file.isDirectory { c.response.line("size", size) }
            if let modified = file.lastModified { c.response.line("Last-Modified", ResponseText.iso8601(modified)) }
        }
    }

    static func update(_ c: inout CommandContext) async throws { try await update(&c, rescan: false) }
    static func rescan(_ c: inout CommandContext) async throws { try await update(&c, rescan: true) }

    static func update(_ c: inout CommandContext, rescan: Bool) async throws {
        let uri = c.argument(0) == nil ? nil : try c.uri(0, unsafe: .badArgument("Malformed path"))
        c.response.line("updating_db", try await c.backend.update(uri, rescan: rescan))
    }
}
