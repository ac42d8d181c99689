import FermataCore
import Foundation
import Hummingbird
import MPDProtocol

/// The library, a page at a time (never the whole library in one answer): `/api/library/artists`, `…/albums`,
/// `…/album`, `…/folder`, `…/search` (the library's full-text index), and `/api/upload/{name}`.
///
/// A value; its handlers run on the requests' tasks.
struct LibraryRoutes: Sendable {
    let api: WebAPI

    func register(on router: Router<WebContext>) {
        router.get("/api/library/artists") { request, _ in
            let (offset, limit) = try WebAPI.page(request)
            let rows = try await WebAPI.calling { try await api.mpd.tagValues(TagListRequest(key: .tag(.artist))) }
            let names = rows.map(\.value).filter { !$0.isEmpty }
            return api.json(WebJSON.NamePage(total: names.count, offset: offset, items: Self.slice(names, offset, limit)))
        }
        router.get("/api/library/albums") { request, _ in
            let (offset, limit) = try WebAPI.page(request)
            let artist = try WebAPI.text(request, "artist")
            let filter = artist.map { SongFilter.string(.tag(.artist), StringMatch(.equals, $0)) }
            let rows = try await WebAPI.calling {
                try await api.mpd.tagValues(TagListRequest(key: .tag(.album), filter: filter, groups: [.albumArtist]))
            }
            let albums = rows.filter { !$0.value.isEmpty }.map {
                WebJSON.Album(album: $0.value, artist: $0.groups.first.flatMap { $0.isEmpty ? nil : $0 })
            }
            return api.json(WebJSON.AlbumPage(total: albums.count, offset: offset, items: Self.slice(albums, offset, limit)))
        }
        router.get("/api/library/album") { request, _ in
            guard let album = try WebAPI.text(request, "album") else { throw WebFailure.bad("album is needed") }
            let artist = try WebAPI.text(request, "artist")
            let songs = try await WebAPI.calling {
                try await api.mpd.songs(SongQuery(filter: Self.albumFilter(album, artist: artist), sort: SongSort(.tag(.track)),
                                                  window: PositionRange(start: 0, end: 2_000)))
            }
            return api.json(WebJSON.SongPage(total: songs.count, offset: 0, songs: songs.map(WebJSON.Song.init)))
        }
        router.get("/api/library/folder") { request, _ in try await folder(request) }
        router.get("/api/library/search") { request, _ in
            let (offset, limit) = try WebAPI.page(request)
            guard let text = try WebAPI.text(request, "q"), !text.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw WebFailure.bad("q is needed")
            }
            guard offset + limit <= 10_000 else { throw WebFailure.bad("search pages reach 10000 songs at most") }
            let found = try await WebAPI.calling { try await api.backend.search(text, limit: offset + limit) }
            return api.json(WebJSON.SongPage(total: nil, offset: offset,
                                             songs: Self.slice(found, offset, limit).map(WebJSON.Song.init)))
        }
        router.put("/api/upload/:name") { request, context in try await UploadHandler(api: api).upload(request, context) }
    }

    /// The songs of `album`, of `artist` when given (as album artist, or as artist for files without one).
    static func albumFilter(_ album: String, artist: String?) -> SongFilter {
        var filters = [SongFilter.string(.tag(.album), StringMatch(.equals, album))]
        if let artist {
            let byAlbumArtist = SongFilter.string(.tag(.albumArtist), StringMatch(.equals, artist))
            let byArtist = SongFilter.string(.tag(.artist), StringMatch(.equals, artist))
            // Either: SongFilter has no OR, and not(not a and not b) is one.
            filters.append(.not(.and([.not(byAlbumArtist), .not(byArtist)])))
        }
        return .and(filters)
    }

    static func slice<T>(_ items: [T], _ offset: Int, _ limit: Int) -> [T] {
        guard offset < items.count else { return [] }
        return Array(items[offset..<min(items.count, offset + limit)])
    }

    /// A folder of the music directory: its folders first, then its songs, a page of both.
    private func folder(_ request: Request) async throws -> Response {
        let (offset, limit) = try WebAPI.page(request)
        let path = try WebAPI.text(request, "path", maxBytes: 4096) ?? ""
        let uri: String
        do {
            uri = path.isEmpty ? "" : try URIValidator.checked(path, handlers: [])
        } catch {
            throw WebFailure.notFound("No such directory")
        }
        let entries = try await WebAPI.calling { try await api.mpd.browse(uri, recursive: false) }
        var folders: [String] = [], songs: [SongInfo] = []
        for entry in entries {
            switch entry {
            case let .directory(path, _): folders.append(path)
            case let .song(song): songs.append(song)
            case .playlist: break
            }
        }
        let total = folders.count + songs.count
        let pageFolders = Self.slice(folders, offset, limit)
        let songOffset = max(0, offset - folders.count)
        let pageSongs = Self.slice(songs, songOffset, limit - pageFolders.count)
        return api.json(WebJSON.FolderPage(path: uri, total: total, offset: offset, folders: pageFolders,
                                           songs: pageSongs.map(WebJSON.Song.init)))
    }
}
