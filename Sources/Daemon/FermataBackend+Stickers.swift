import Library
import MPDProtocol

/// Stickers: MPD's per-song key/value store, kept in the library's custom metadata so they follow a file that is
/// renamed or moved.
extension FermataBackend {
    public func sticker(_ operation: StickerOperation) async throws -> [StickerMatch] {
        switch operation {
        case let .get(type, uri, name):
            try await requireSong(type, uri)
            guard let value = try await library.sticker(path: uri, name: name) else {
                throw MPDError(.noExist, "no such sticker")
            }
            return [StickerMatch(name: name, value: value)]
        case let .set(type, uri, name, value):
            try await requireSong(type, uri)
            try await library.setSticker(path: uri, name: name, value: value)
        case let .delete(type, uri, name):
            try await requireSong(type, uri)
            guard try await library.deleteSticker(path: uri, name: name) else { throw MPDError(.noExist, "no such sticker") }
        case let .list(type, uri):
            try await requireSong(type, uri)
            return try await library.stickers(path: uri).sorted { $0.key < $1.key }.map {
                StickerMatch(name: $0.key, value: $0.value)
            }
        case let .find(type, uri, name, comparison):
            guard type == "song" else { throw MPDError(.argument, "unknown sticker domain") }
            return try await library.findStickers(name: name, under: uri).filter { match in
                guard let comparison else { return true }
                switch comparison.op {
                case .equal: return match.value == comparison.value
                case .less: return (Int(match.value) ?? 0, match.value) < (Int(comparison.value) ?? 0, comparison.value)
                case .greater: return (Int(match.value) ?? 0, match.value) > (Int(comparison.value) ?? 0, comparison.value)
                }
            }.map { StickerMatch(uri: $0.path, name: name, value: $0.value) }
        }
        idle.publish(.sticker)
        return []
    }

    private func requireSong(_ type: String, _ uri: String) async throws {
        guard type == "song" else { throw MPDError(.argument, "unknown sticker domain") }
        guard await song(uri: uri) != nil else { throw MPDError(.noExist, "no such song") }
    }
}
