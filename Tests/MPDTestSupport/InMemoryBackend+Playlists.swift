import FermataCore
import MPDProtocol

/// Stored playlists, stickers and outputs of the in-memory backend.
extension InMemoryBackend {
    public func storedPlaylists() async throws -> [StoredPlaylistInfo] {
        storedPlaylists.keys.sorted().map { StoredPlaylistInfo(name: $0, lastModified: storedPlaylists[$0]!.modified) }
    }

    public func storedPlaylistSongs(_ name: String) async throws -> [SongInfo] {
        guard let uris = storedPlaylists[name]?.uris else { throw MPDError.noSuchPlaylist() }
        return uris.map { song(uri: $0) ?? SongInfo(uri: $0) }
    }

    public func editStoredPlaylist(_ name: String, _ edit: StoredPlaylistEdit) async throws {
        let exists = storedPlaylists[name] != nil
        switch edit {
        case let .saveQueue(mode):
            if mode == .create, exists { throw MPDError(.exist, "Playlist already exists") }
            if mode != .create, !exists { throw MPDError.noSuchPlaylist() }
            let uris = queue.map(\.uri)
            storedPlaylists[name] = ((mode == .append ? storedPlaylists[name]?.uris ?? [] : []) + uris, 1_700_000_100)
        case let .add(uri, position):
            let uris = try resolve(.uri(uri, recursive: true))
            var list = storedPlaylists[name]?.uris ?? []
            let index = position ?? list.count
            guard index <= list.count else { throw MPDError.badSongIndex() }
            list.insert(contentsOf: uris, at: index)
            storedPlaylists[name] = (list, 1_700_000_100)
        case .clear: storedPlaylists[name] = ([], 1_700_000_100)
        case let .delete(range):
            guard var list = storedPlaylists[name]?.uris else { throw MPDError.noSuchPlaylist() }
            guard range.start < list.count else { throw MPDError.badSongIndex() }
            list.removeSubrange(range.clamped(to: list.count))
            storedPlaylists[name]!.uris = list
        case let .move(from, to):
            guard var list = storedPlaylists[name]?.uris else { throw MPDError.noSuchPlaylist() }
            guard let end = from.end, end <= list.count, to <= list.count - (end - from.start) else {
                throw MPDError(.argument, "Bad range")
            }
            let bounds = from.start..<end
            let moving = Array(list[bounds])
            list.removeSubrange(bounds)
            list.insert(contentsOf: moving, at: to)
            storedPlaylists[name]!.uris = list
        case let .rename(newName):
            guard let playlist = storedPlaylists[name] else { throw MPDError.noSuchPlaylist() }
            guard storedPlaylists[newName] == nil else { throw MPDError(.exist, "Playlist already exists") }
            storedPlaylists[newName] = playlist
            storedPlaylists[name] = nil
        case .remove:
            guard exists else { throw MPDError.noSuchPlaylist() }
            storedPlaylists[name] = nil
        }
        idle.publish(.storedPlaylist)
    }

    public func sticker(_ operation: StickerOperation) async throws -> [StickerMatch] {
        switch operation {
        case let .get(type, uri, name):
            try checkSong(type, uri)
            guard let value = stickers[uri]?[name] else { throw MPDError.noSuchSticker(name) }
            return [StickerMatch(name: name, value: value)]
        case let .set(type, uri, name, value):
            try checkSong(type, uri)
            stickers[uri, default: [:]][name] = value
            idle.publish(.sticker)
            return []
        case let .delete(type, uri, name):
            try checkSong(type, uri)
            guard let name else { stickers[uri] = nil; idle.publish(.sticker); return [] }
            guard stickers[uri]?.removeValue(forKey: name) != nil else { throw MPDError.noSuchSticker(name) }
            idle.publish(.sticker)
            return []
        case let .add(type, uri, name, delta, ifMissing):
            try checkSong(type, uri)
            let current = stickers[uri]?[name]
            stickers[uri, default: [:]][name] =
                current.map { String(StickerComparison.integer($0) &+ Int64(delta)) } ?? String(ifMissing)
            idle.publish(.sticker)
            return []
        case .names:
            return Set(stickers.values.flatMap(\.keys)).sorted().map { StickerMatch(name: $0, value: "") }
        case let .list(type, uri):
            try checkSong(type, uri)
            return (stickers[uri] ?? [:]).sorted { $0.key < $1.key }.map { StickerMatch(name: $0.key, value: $0.value) }
        case let .find(type, uri, name, comparison):
            guard type == "song" else { throw MPDError(.argument, "unknown sticker type") }
            return stickers.keys.sorted().filter { uri.isEmpty || $0.hasPrefix(uri + "/") || $0 == uri }.compactMap {
                file in
                guard let value = stickers[file]?[name], comparison?.holds(for: value) ?? true else { return nil }
                return StickerMatch(uri: file, name: name, value: value)
            }
        }
    }

    func checkSong(_ type: String, _ uri: String) throws {
        guard type == "song" else { throw MPDError(.argument, "unknown sticker type") }
        guard song(uri: uri) != nil else { throw MPDError.notFound("No such song") }
    }

    public func outputs() async throws -> [OutputInfo] { outputList }

    public func setOutput(_ id: Int, enabled: Bool?) async throws {
        guard let index = outputList.firstIndex(where: { $0.id == id }) else {
            throw MPDError(.noExist, "No such audio output")
        }
        outputList[index].enabled = enabled ?? !outputList[index].enabled
        idle.publish(.output)
    }
}
