import FermataCore
import MPDProtocol

/// The library half of the in-memory backend: search, list, count, browse, update, cover pictures.
extension InMemoryBackend {
    public func songs(_ query: SongQuery) async throws -> [SongInfo] { try matching(query) }

    func matching(_ query: SongQuery) throws -> [SongInfo] {
        let matcher = try Self.matcher(query.filter)
        var found = library.filter { matcher.matches($0) }
        if let sort = query.sort {
            found.sort { lhs, rhs in
                let (a, b) = (Self.sortKey(lhs, sort.key), Self.sortKey(rhs, sort.key))
                return sort.descending ? b < a : a < b
            }
        }
        guard let window = query.window else { return found }
        guard window.start <= found.count else { throw MPDError.badArgument("Bad window") }
        return Array(found[window.clamped(to: found.count)])
    }

    static func sortKey(_ song: SongInfo, _ key: SongSort.Key) -> String {
        switch key {
        case let .tag(tag): song.first(tag) ?? ""
        case .lastModified: String(song.lastModified ?? 0).leftPadded(to: 20)
        case .added: String(song.added ?? 0).leftPadded(to: 20)
        }
    }

    public func tagValues(_ request: TagListRequest) async throws -> [TagListRow] {
        let matcher = try request.filter.map { try Self.matcher($0) }
        var rows = Set<TagListRow>()
        for song in library where matcher?.matches(song) ?? true {
            let groups = request.groups.map { song.first($0) ?? "" }
            switch request.key {
            case .file: rows.insert(TagListRow(groups: groups, value: song.uri))
            case let .tag(tag): for value in song.values(tag) { rows.insert(TagListRow(groups: groups, value: value)) }
            }
        }
        return rows.sorted {
            ($0.groups.joined(separator: "\u{0}"), $0.value) < ($1.groups.joined(separator: "\u{0}"), $1.value)
        }
    }

    public func count(_ filter: SongFilter?, groupBy: TagType?) async throws -> [CountRow] {
        let matcher = try filter.map { try Self.matcher($0) }
        let songs = library.filter { matcher?.matches($0) ?? true }
        guard let groupBy else {
            return [CountRow(songs: songs.count, playtime: Int64(songs.compactMap(\.duration).reduce(0, +)))]
        }
        let groups = Dictionary(grouping: songs) { $0.first(groupBy) ?? "" }
        return groups.keys.sorted().map { key in
            CountRow(
                group: key, songs: groups[key]!.count, playtime: Int64(groups[key]!.compactMap(\.duration).reduce(0, +))
            )
        }
    }

    public func browse(_ uri: String, recursive: Bool) async throws -> [DirectoryEntry] {
        if let song = song(uri: uri) { return [.song(song)] }
        guard uri.isEmpty || library.contains(where: { $0.uri.hasPrefix(uri + "/") }) else {
            throw MPDError.notFound("No such directory")
        }
        var entries = listing(uri, recursive: recursive)
        if uri.isEmpty, !recursive {
            entries += storedPlaylists.keys.sorted().map {
                .playlist(StoredPlaylistInfo(name: $0, lastModified: storedPlaylists[$0]!.modified))
            }
        }
        return entries
    }

    /// Sub-directories (each followed by its contents when recursive), then the songs directly inside `directory`.
    func listing(_ directory: String, recursive: Bool) -> [DirectoryEntry] {
        let prefix = directory.isEmpty ? "" : directory + "/"
        let inside = library.filter { $0.uri.hasPrefix(prefix) }
        let children = Set(
            inside.compactMap { song -> String? in
                let rest = song.uri.dropFirst(prefix.count)
                guard let slash = rest.firstIndex(of: "/") else { return nil }
                return prefix + rest[..<slash]
            })
        var entries: [DirectoryEntry] = []
        for child in children.sorted() {
            entries.append(.directory(path: child, lastModified: 1_700_000_000))
            if recursive { entries += listing(child, recursive: true) }
        }
        entries += inside.filter { !$0.uri.dropFirst(prefix.count).contains("/") }.sorted { $0.uri < $1.uri }.map {
            .song($0)
        }
        return entries
    }

    public func files(in uri: String) async throws -> [FileEntry] {
        let entries = try await browse(uri, recursive: false)
        var files = entries.compactMap { entry -> FileEntry? in
            switch entry {
            case let .directory(path, modified):
                FileEntry(name: Self.base(path), isDirectory: true, lastModified: modified)
            case let .song(song):
                FileEntry(name: Self.base(song.uri), isDirectory: false, size: 1_000, lastModified: song.lastModified)
            case .playlist: nil
            }
        }
        if let cover = directoryCovers[uri] {
            files.append(FileEntry(name: "cover.jpg", isDirectory: false, size: Int64(cover.count)))
        }
        return files
    }

    static func base(_ path: String) -> String { path.split(separator: "/").last.map(String.init) ?? path }

    /// As MPD, any path passing the protocol's checks is queued, existing or not.
    public func update(_ uri: String?, rescan: Bool) async throws -> Int {
        updateJob += 1
        idle.publish([.update, .database])
        return updateJob
    }

    public func coverArt(_ request: CoverArtRequest) async throws -> CoverArtChunk? {
        guard song(uri: request.uri) != nil else { throw MPDError.notFound("No such file") }
        let picture: (bytes: [UInt8], mime: String?)?
        switch request.source {
        case .embedded: picture = embeddedPictures[request.uri].map { ($0.bytes, $0.mime) }
        case .directoryFile:
            let directory = request.uri.split(separator: "/").dropLast().joined(separator: "/")
            picture = directoryCovers[directory].map { ($0, nil) }
        }
        guard let picture else { return nil }
        guard request.offset <= picture.bytes.count else { throw MPDError.badArgument("Bad file offset") }
        let end = min(picture.bytes.count, request.offset + request.maxLength)
        return CoverArtChunk(
            totalSize: picture.bytes.count, mimeType: picture.mime, bytes: Array(picture.bytes[request.offset..<end]))
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
