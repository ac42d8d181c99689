import FermataCore
import MPDProtocol

/// Stored playlist commands over `PlaylistStore`.
extension FermataBackend {
    public func storedPlaylists() async throws -> [StoredPlaylistInfo] { try playlists.list() }

    public func storedPlaylistSongs(_ name: String) async throws -> [SongInfo] {
        var songs: [SongInfo] = []
        for line in try playlists.read(name) {
            var song = await song(uri: line.uri) ?? SongInfo(uri: line.uri)
            song.span = line.span
            songs.append(song)
        }
        return songs
    }

    public func editStoredPlaylist(_ name: String, _ edit: StoredPlaylistEdit) async throws {
        switch edit {
        case let .saveQueue(mode):
            let queue = await player.queueView().queue.entries.map { PlaylistLine(uri: $0.uri, span: $0.span) }
            let exists = playlists.exists(name)
            switch mode {
            case .create:
                guard !exists else { throw MPDError(.exist, "Playlist already exists") }
                try playlists.write(name, queue)
            case .append, .replace:
                guard exists else { throw MPDError.noSuchPlaylist() }  // MPD's spl_save_queue
                try playlists.write(name, (mode == .append ? try playlists.read(name) : []) + queue)
            }
        case let .add(uri, position):
            // A stream's URL is checked by `resolve` (MPD's `playlistadd NAME URL`); a path must be in the music.
            if !PlayableItem.isLive(uri) { _ = try musicGuard.resolve(uri) }
            var uris = playlists.exists(name) ? try playlists.read(name) : []
            // MPD's PlaylistFileEditor::Insert: a position past the end is refused (an append needs none).
            if let position, position > uris.count { throw MPDError(.argument, "Bad position") }
            let added = try await resolve(.uri(uri, recursive: true)).map { PlaylistLine(uri: $0) }
            let at = position ?? uris.count
            uris.insert(contentsOf: added, at: at)
            try playlists.write(name, uris)
        case .clear:
            // MPD 0.23's spl_clear opens the file to truncate it: a missing playlist is `No such playlist`.
            guard playlists.exists(name) else { throw MPDError.noSuchPlaylist() }
            try playlists.write(name, [])
        case let .delete(range):
            var uris = try playlists.read(name)
            // MPD clips the range: one starting at the end deletes nothing.
            guard range.start <= uris.count else { throw MPDError.badSongIndex() }
            uris.removeSubrange(range.clamped(to: uris.count))
            try playlists.write(name, uris)
        case let .move(from, to):
            var uris = try playlists.read(name)
            guard let end = from.end, end <= uris.count, to >= 0, to <= uris.count - (end - from.start) else {
                throw MPDError(.argument, "Bad range")  // MPD's PlaylistFileEditor::MoveIndex
            }
            let range = from.start..<end
            let moving = Array(uris[range])
            uris.removeSubrange(range)
            uris.insert(contentsOf: moving, at: to)
            try playlists.write(name, uris)
        case let .rename(newName):
            try playlists.rename(name, to: newName)
        case .remove:
            try playlists.remove(name)
        }
        idle.publish(.storedPlaylist)
    }
}
