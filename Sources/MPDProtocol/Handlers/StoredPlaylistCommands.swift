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

    static func load(_ c: inout CommandContext) async throws {
        let range = c.argument(1) == nil ? nil : try c.range(1)
        let position = c.argument(2) == nil ? QueueInsertPosition.end : try c.insertPosition(2)
        try await c.backend.editQueue(.add(.storedPlaylist(name: try c.playlistName(0), range: range), at: position))
    }

    static func save(_ c: inout CommandContext) async throws {
        var mode = StoredPlaylistEdit.SaveMode.create
        if let text = c.argument(1) {
            guard let parsed = StoredPlaylistEdit.SaveMode(rawValue: text) else {
                throw MPDError.badArgument("Unrecognized save mode: \(text)")
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

    static func move(_ c: inout CommandContext) async throws {
        try await c.backend.editStoredPlaylist(
            try c.playlistName(0), .move(from: try c.range(1), to: try c.unsigned(2)))
    }
}
