import FermataCore
import Foundation
import Hummingbird
import MPDProtocol

/// The queue and the stored playlists: `/api/queue` (a page of it; add files, folders, stream URLs, an album or a
/// playlist; clear), `/api/queue/{id}` (remove, play, move, priority), `/api/playlists` (list, save the queue, show,
/// delete). Every edit goes through the MPD backend, so it is durable before its answer, as an MPD client's is.
///
/// A value; its handlers run on the requests' tasks.
struct QueueRoutes: Sendable {
    let api: WebAPI

    func register(on router: Router<WebContext>) {
        router.get("/api/queue") { request, _ in try await page(request) }
        router.post("/api/queue") { request, context in try await add(request, context) }
        router.delete("/api/queue") { _, _ in
            _ = try await WebAPI.calling { try await api.mpd.editQueue(.clear) }
            return WebAPI.noContent
        }
        router.delete("/api/queue/:id") { _, context in
            let id = try entry(context)
            _ = try await WebAPI.calling { try await api.mpd.editQueue(.delete(.id(id))) }
            return WebAPI.noContent
        }
        router.post("/api/queue/:id/play") { _, context in
            let id = try entry(context)
            try await WebAPI.calling { try await api.mpd.perform(.playEntry(id)) }
            return WebAPI.noContent
        }
        router.post("/api/queue/:id/move") { request, context in
            let id = try entry(context)
            let to = try await api.body(request, context, as: Move.self).to
            guard (0...99_999).contains(to) else { throw WebFailure.bad("to must be a position from 0 to 99999") }
            _ = try await WebAPI.calling { try await api.mpd.editQueue(.move(.id(id), to: .absolute(to))) }
            return WebAPI.noContent
        }
        router.post("/api/queue/:id/priority") { request, context in
            let id = try entry(context)
            let priority = try await api.body(request, context, as: Priority.self).priority
            guard let value = UInt8(exactly: priority) else { throw WebFailure.bad("priority must be 0 to 255") }
            _ = try await WebAPI.calling { try await api.mpd.editQueue(.priority(value, [.id(id)])) }
            return WebAPI.noContent
        }
        router.get("/api/playlists") { _, _ in
            let list = try await WebAPI.calling { try await api.mpd.storedPlaylists() }
            return api.json(WebJSON.Playlists(playlists: list.map {
                WebJSON.Playlist(name: $0.name, modified: $0.lastModified.map(Self.isoDate))
            }))
        }
        router.post("/api/playlists") { request, context in
            let name = try await api.body(request, context, as: Name.self).name
            try Self.checkPlaylistName(name)
            try await WebAPI.calling {
                // MPD's `save` refuses to replace a playlist that is not there: create it then.
                let exists = try await api.mpd.storedPlaylists().contains { $0.name == name }
                try await api.mpd.editStoredPlaylist(name, .saveQueue(exists ? .replace : .create))
            }
            return WebAPI.noContent
        }
        router.get("/api/playlists/:name") { _, context in
            let name = try playlistName(context)
            let songs = try await WebAPI.calling { try await api.mpd.storedPlaylistSongs(name) }
            return api.json(WebJSON.SongPage(total: songs.count, offset: 0, songs: songs.map(WebJSON.Song.init)))
        }
        router.delete("/api/playlists/:name") { _, context in
            let name = try playlistName(context)
            try await WebAPI.calling { try await api.mpd.editStoredPlaylist(name, .remove) }
            return WebAPI.noContent
        }
    }

    private struct Move: Decodable { let to: Int }
    private struct Priority: Decodable { let priority: Int }
    private struct Name: Decodable { let name: String }

    private struct Add: Decodable {
        let uris: [String]?
        let album: String?
        let artist: String?
        let playlist: String?
        let position: Int?
        let replace: Bool?
    }

    private func entry(_ context: WebContext) throws -> EntryID {
        EntryID(try WebAPI.parameter(context, "id", in: 0...Int.max))
    }

    private func playlistName(_ context: WebContext) throws -> String {
        guard let name = context.parameters.get("name") else { throw WebFailure.bad("a playlist name is needed") }
        try Self.checkPlaylistName(name)
        return name
    }

    static func checkPlaylistName(_ name: String) throws {
        do {
            try StoredPlaylistName.validate(name)
        } catch {
            throw WebFailure.bad(error.message)
        }
    }

    /// A page of the queue, with its version, length and the entry playing.
    private func page(_ request: Request) async throws -> Response {
        let (offset, limit) = try WebAPI.page(request)
        let status = try await WebAPI.calling { try await api.mpd.status() }
        let songs = offset >= status.queueLength ? [] : try await WebAPI.calling {
            try await api.mpd.queueSongs(.positions(PositionRange(start: offset, end: min(status.queueLength, offset + limit))))
        }
        return api.json(WebJSON.QueuePage(version: Int(status.queueVersion), length: status.queueLength, offset: offset,
                                          current: status.player.entryID, entries: songs.map(WebJSON.Song.init)))
    }

    /// Adds what the body names — files or folders or http(s) stream URLs, an album (of an artist), or a stored
    /// playlist — at `position` or the end; `replace` clears the queue first and plays.
    private func add(_ request: Request, _ context: WebContext) async throws -> Response {
        let body = try await api.body(request, context, as: Add.self)
        let named = [body.uris != nil, body.album != nil, body.playlist != nil].filter { $0 }.count
        guard named == 1 else { throw WebFailure.bad("name exactly one of uris, album or playlist") }
        if let position = body.position, !(0...99_999).contains(position) {
            throw WebFailure.bad("position must be from 0 to 99999")
        }
        var sources: [QueueSource] = []
        if let uris = body.uris {
            guard (1...1_000).contains(uris.count) else { throw WebFailure.bad("uris holds 1 to 1000 entries") }
            for uri in uris {
                if URIValidator.scheme(of: uri) != nil {
                    sources.append(.uri(try Self.checkedStream(uri), recursive: false))
                    continue
                }
                guard let checked = try? URIValidator.checked(uri, handlers: []) else {
                    throw WebFailure.bad("not a library path: \(uri.prefix(200))")
                }
                sources.append(.uri(checked, recursive: true))
            }
        } else if let album = body.album {
            sources.append(.matching(SongQuery(filter: LibraryRoutes.albumFilter(album, artist: body.artist),
                                               sort: SongSort(.tag(.track)))))
        } else if let playlist = body.playlist {
            try Self.checkPlaylistName(playlist)
            sources.append(.storedPlaylist(name: playlist, range: nil))
        }
        let replace = body.replace ?? false
        var ids: [EntryID] = []
        try await WebAPI.calling {
            if replace { try await api.mpd.editQueue(.clear) }
            var position = body.position
            for source in sources {
                let added = try await api.mpd.editQueue(.add(source, at: position.map { .absolute($0) } ?? .end))
                ids += added
                position = position.map { $0 + added.count }
            }
            if replace, let first = ids.first { try await api.mpd.perform(.playEntry(first)) }
        }
        return api.json(WebJSON.IDs(ids: ids))
    }

    /// The longest stream URL queued (the stream reader's own limit, `StreamURL.maxLength`).
    static let maxStreamURLBytes = 2048

    /// A network stream's URL as the queue takes it (MPD's `add URL`: queued without being fetched): http or https,
    /// a host, at most `maxStreamURLBytes` bytes, no spaces or control characters; anything else is a 400 that says
    /// which.
    static func checkedStream(_ url: String) throws -> String {
        let scheme = URIValidator.scheme(of: url) ?? ""
        guard scheme == "http" || scheme == "https" else {
            throw WebFailure.bad("a stream URL starts with http:// or https:// (not \(scheme.prefix(20))://)")
        }
        guard url.utf8.count <= maxStreamURLBytes else {
            throw WebFailure.bad("a stream URL is at most \(maxStreamURLBytes) bytes")
        }
        guard !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            throw WebFailure.bad("a stream URL has no spaces or control characters (write a space as %20)")
        }
        let rest = url.utf8.dropFirst(scheme.utf8.count + 3)
        guard let first = rest.first, ![UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")].contains(first) else {
            throw WebFailure.bad("a stream URL names a host: http://HOST/…")
        }
        return url
    }

    static func isoDate(_ seconds: Int64) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
