import Library
import MPDProtocol

/// Stickers: MPD's per-song key/value store, kept in the library's custom metadata so they follow a file that is
/// renamed or moved. The protocol handler has checked the domain (`song`) and parsed MPD 0.24's forms.
extension FermataBackend {
    public func sticker(_ operation: StickerOperation) async throws -> [StickerMatch] {
        switch operation {
        case let .get(type, uri, name):
            try await requireSong(type, uri)
            guard let value = try await library.sticker(path: uri, name: name) else {
                throw MPDError.noSuchSticker(name)
            }
            return [StickerMatch(name: name, value: value)]
        case let .set(type, uri, name, value):
            try await requireSong(type, uri)
            try await library.setSticker(path: uri, name: name, value: value)
        case let .add(type, uri, name, delta, ifMissing):
            try await requireSong(type, uri)
            try await library.updateSticker(path: uri, name: name) { current in
                // Saturating: `inc` on 9223372036854775807 stays there (it wrapped to -9223372036854775808).
                current.map { value in
                    let (sum, overflow) = StickerComparison.integer(value).addingReportingOverflow(Int64(delta))
                    return String(overflow ? (delta > 0 ? Int64.max : Int64.min) : sum)
                } ?? String(ifMissing)
            }
        case let .delete(type, uri, name):
            try await requireSong(type, uri)
            guard try await library.deleteSticker(path: uri, name: name) else { throw MPDError.noSuchSticker(name) }
        case let .list(type, uri):
            try await requireSong(type, uri)
            return try await library.stickers(path: uri).sorted { $0.key < $1.key }.map {
                StickerMatch(name: $0.key, value: $0.value)
            }
        case let .find(type, uri, name, comparison):
            guard type == "song" else { throw MPDError(.argument, "unknown sticker domain") }
            return try await library.findStickers(name: name, under: uri).filter { match in
                comparison?.holds(for: match.value) ?? true
            }.map { StickerMatch(uri: $0.path, name: name, value: $0.value) }
        case .names:
            return try await library.stickerNames().map { StickerMatch(name: $0, value: "") }
        }
        idle.publish(.sticker)
        return []
    }

    private func requireSong(_ type: String, _ uri: String) async throws {
        guard type == "song" else { throw MPDError(.argument, "unknown sticker domain") }
        guard await song(uri: uri) != nil else { throw MPDError.noSuchSong() }
    }
}
