/// Handlers for stored playlists: listing, loading into the queue, saving and editing.
///
/// Stateless; run on the executing command's task.
enum StoredPlaylistCommands {
    static func listPlaylists(_ c: inout CommandContext) async throws {
        for playlist in try await c.backend.storedPlaylists() {
            if c.response.isFull { break }
            c.response.line("playlist", playlist.name)
            if let modified = playlist.lastModified { c.response.line("Last-Modified", ResponseText.iso8601(modified)) }
        }
    }

    static func listPlaylist(_ c: inout CommandContext) async throws {
        for song in try await songs(c) {
            if c.response.isFull { break }
            c.response.line("file", song.uri)
        }
    }

    static func listPlaylistInfo(_ c: inout CommandContext) async throws {
        c.printSongs(try await songs(c))
    }

    /// The playlist's songs, sliced by the optional range argument.
    static func songs(_ c: CommandContext) async throws -> ArraySlice<SongInfo> {
        let songs = try await c.backend.storedPlaylistSongs(try c.playlistName(0))
        guard c.argument(1) != nil else { return songs[...] }
        return songs[try c.range(1).clamped(to: songs.count)]
    }

    /// `playlistlength NAME` (MPD 0.24): the number of songs and their whole playing time, rounded to seconds.
    static func length(_ c: inout CommandContext) async throws {
        let songs = try await c.backend.storedPlaylistSongs(try c.playlistName(0))
        c.response.line("songs", songs.count)
        c.response.line("playtime", Int64(songs.reduce(0) { $0 + max(0, $1.duration ?? 0) }.rounded()))
    }

    /// `searchplaylist NAME FILTER [window START:END]` (MPD 0.24): the playlist's songs matching the filter (case
    /// folded, as `search`), each with its position in the playlist; the window counts matches. A song the library
    /// does not know is printed by name only, as MPD does.
    static func search(_ c: inout CommandContext) async throws {
        var rest = c.arguments.dropFirst()
        var window = PositionRange.all
        if rest.count == 3, rest[rest.endIndex - 2] == "window" {
            window = try ArgumentParser.range(rest[rest.endIndex - 1])
            rest = rest.dropLast(2)
        }
        let filter = try SongFilterParser.parse(rest, foldCase: true)
        let matcher: SongFilterMatcher
        do { matcher = try SongFilterMatcher(filter) } catch {
            throw MPDError.badArgument("Bad regular expression: \(error.pattern)")
        }
        let songs = try await c.backend.storedPlaylistSongs(try c.playlistName(0))
        let matches = songs.indices.filter { matcher.matches(songs[$0]) }
        for position in matches[window.clamped(to: matches.count)] {
            if c.response.isFull { break }
            let song = songs[position]
            guard song.duration != nil || !song.tags.isEmpty || song.lastModified != nil else {
                c.response.line("file", song.uri)
                continue
            }
            c.printSong(song)
            c.response.line("Pos", position)
        }
    }

    static func load(_ c: inout CommandContext) async throws {
        let range = c.argument(1) == nil ? nil : try c.range(1)
        let position = c.argument(2) == nil ? QueueInsertPosition.end : try c.insertPosition(2)
        try await c.backend.editQueue(.add(.storedPlaylist(name: try c.playlistName(0), range: range), at: position))
    }

    static func save(_ c: inout CommandContext) async throws {
        var mode = StoredPlaylistEdit.SaveMode.create
        if let text = c.argument(1) {
            guard let parsed = StoredPlaylistEdit.SaveMode(rawValue: text) else {
                throw MPDError.badArgument("Unrecognized save mode, expected one of 'create', 'append', 'replace'")
            }
            mode = parsed
        }
        try await c.backend.editStoredPlaylist(try c.playlistName(0), .saveQueue(mode))
    }

    static func remove(_ c: inout CommandContext) async throws {
        try await c.backend.editStoredPlaylist(try c.playlistName(0), .remove)
    }

    static func rename(_ c: inout CommandContext) async throws {
        try await c.backend.editStoredPlaylist(try c.playlistName(0), .rename(to: try c.playlistName(1)))
    }

    static func add(_ c: inout CommandContext) async throws {
        let position = c.argument(2) == nil ? nil : try c.unsigned(2)
        try await c.backend.editStoredPlaylist(try c.playlistName(0), .add(uri: try c.uri(1), at: position))
    }

    static func clear(_ c: inout CommandContext) async throws {
        try await c.backend.editStoredPlaylist(try c.playlistName(0), .clear)
    }

    static func delete(_ c: inout CommandContext) async throws {
        try await c.backend.editStoredPlaylist(try c.playlistName(0), .delete(try c.range(1)))
    }

    /// `playlistmove NAME FROM[:END] TO` (a range since MPD 0.24). As MPD: a range without an end is refused, and an
    /// empty range or a move to where it starts changes nothing (unchecked).
    static func move(_ c: inout CommandContext) async throws {
        let name = try c.playlistName(0)
        let from = try c.range(1)
        guard let end = from.end else { throw MPDError.badArgument("Open-ended range not supported") }
        let to = try c.unsigned(2)
        guard end > from.start, from.start != to else { return }
        try await c.backend.editStoredPlaylist(name, .move(from: from, to: to))
    }
}
