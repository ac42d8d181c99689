import Decoders
import FermataCore
import Foundation
import Library
import MPDProtocol

/// Database commands. Filters are evaluated with the protocol's own `SongFilterMatcher` over the library's tracks
/// (narrowed in SQL by a `base` directory when the filter has one), so every filter form MPD clients send works alike.
extension FermataBackend {
    public func songs(_ query: SongQuery) async throws -> [SongInfo] {
        var songs = try await matching(query.filter)
        if let sort = query.sort { songs.sort { Self.ordered($0, $1, by: sort) } }
        if let window = query.window { songs = Array(songs[window.clamped(to: songs.count)]) }
        return songs
    }

    public func tagValues(_ request: TagListRequest) async throws -> [MPDProtocol.TagListRow] {
        let songs = if let filter = request.filter { try await matching(filter) } else { try await allSongs() }
        var rows = Set<MPDProtocol.TagListRow>()
        for song in songs {
            let values: [String] = switch request.key {
            case let .tag(type): song.values(type)
            case .file: [song.uri]
            }
            let groups = request.groups.map { song.first($0) ?? "" }
            for value in values { rows.insert(MPDProtocol.TagListRow(groups: groups, value: value)) }
        }
        return rows.sorted { a, b in
            a.groups == b.groups ? a.value < b.value : a.groups.lexicographicallyPrecedes(b.groups)
        }
    }

    public func count(_ filter: SongFilter?, groupBy: TagType?) async throws -> [CountRow] {
        let songs = if let filter { try await matching(filter) } else { try await allSongs() }
        guard let groupBy else {
            return [CountRow(songs: songs.count, playtime: Int64(songs.reduce(0) { $0 + ($1.duration ?? 0) }))]
        }
        var groups: [String: (Int, Double)] = [:]
        for song in songs {
            let key = song.first(groupBy) ?? ""
            groups[key, default: (0, 0)].0 += 1
            groups[key, default: (0, 0)].1 += song.duration ?? 0
        }
        return groups.keys.sorted().map { CountRow(group: $0, songs: groups[$0]!.0, playtime: Int64(groups[$0]!.1)) }
    }

    public func browse(_ uri: String, recursive: Bool) async throws -> [DirectoryEntry] {
        if !uri.isEmpty, let song = await song(uri: uri) { return [.song(song)] }
        if recursive {
            guard let tree = try await library.subtree(uri) else { throw MPDError(.noExist, "No such directory") }
            return Self.depthFirst(uri, tree)
        }
        guard let listing = try await library.directory(uri) else { throw MPDError(.noExist, "No such directory") }
        var out = listing.directories.map { DirectoryEntry.directory(path: $0, lastModified: nil) }
        out += listing.tracks.map { .song(SongInfo($0)) }
        if uri.isEmpty { out += try playlists.list().map { .playlist($0) } }
        return out
    }

    /// A subtree in `listall` order: each directory's subdirectories (each followed by its own contents), then its
    /// songs.
    static func depthFirst(_ top: String, _ tree: DirectoryListing) -> [DirectoryEntry] {
        func parent(_ path: String) -> String { path.utf8.lastIndex(of: UInt8(ascii: "/")).map { String(path[..<$0]) } ?? "" }
        var subdirectories: [String: [String]] = [:]
        for directory in tree.directories { subdirectories[parent(directory), default: []].append(directory) }
        var tracks: [String: [Track]] = [:]
        for track in tree.tracks { tracks[parent(track.path), default: []].append(track) }
        var out: [DirectoryEntry] = []
        out.reserveCapacity(tree.directories.count + tree.tracks.count)
        func visit(_ directory: String) {
            for child in subdirectories[directory] ?? [] {
                out.append(.directory(path: child, lastModified: nil))
                visit(child)
            }
            out += (tracks[directory] ?? []).map { .song(SongInfo($0)) }
        }
        visit(top)
        return out
    }

    public func files(in uri: String) async throws -> [FileEntry] {
        let guarded = musicGuard
        return try await BlockingWork.run { () throws -> [FileEntry] in
            let path = try guarded.resolve(uri)
            guard let names = RawFiles.names(in: path) else { throw MPDError(.noExist, "No such directory") }
            return names.compactMap { name in
                switch RawFiles.kind(path + "/" + name) {
                case let .file(size, modified): FileEntry(name: name, isDirectory: false, size: size, lastModified: modified)
                case let .directory(modified): FileEntry(name: name, isDirectory: true, size: nil, lastModified: modified)
                case .other, nil: nil
                }
            }
        }
    }

    /// `update DIR` scans that part of the library only. A path outside the music directory is refused; one that does
    /// not exist is scanned for all the same, as MPD queues `update nosuch`: the scan starts at the nearest folder
    /// above it that exists, so a folder deleted since the last scan is found gone.
    public func update(_ uri: String?, rescan: Bool) async throws -> Int {
        if let uri, !uri.isEmpty {
            if case let .failure(error) = Result(catching: { () throws(MPDError) in try musicGuard.resolve(uri) }),
               error.code != .noExist {
                throw error
            }
        }
        let job = library.startScan(rescan ? .full : .incremental, under: uri)
        requestedScan.withLock { $0 = max($0, job) }
        idle.publish(.update)
        return job
    }

    /// Cover art from a `cover.jpg`/`folder.jpg`/`cover.png` beside the song (`albumart`), or the picture embedded in
    /// the song's tags (`readpicture`: FLAC, MP3, MP4, Vorbis and Opus; `EmbeddedPicture`).
    public func coverArt(_ request: CoverArtRequest) async throws -> CoverArtChunk? {
        let guarded = musicGuard
        return try await BlockingWork.run { () throws -> CoverArtChunk? in
            let path: String
            do {
                path = try guarded.resolve(request.uri)  // first: a path outside the library is refused either way
            } catch let error as MPDError where error.code == .noExist {
                throw MPDError(.noExist, "No file exists")  // MPD's answer for a song that is not there
            }
            guard request.source == .directoryFile else {
                guard let slice = EmbeddedPicture.read(path: path, offset: request.offset, maxLength: request.maxLength)
                else { return nil }
                return CoverArtChunk(totalSize: slice.totalSize, mimeType: slice.mimeType, bytes: slice.bytes)
            }
            let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? path
            for name in ["cover.jpg", "cover.png", "folder.jpg", "folder.png", "front.jpg"] {
                guard let read = RawFiles.read(directory + "/" + name, offset: request.offset, maxLength: request.maxLength)
                else { continue }
                guard request.offset <= read.size else { throw MPDError(.argument, "Bad file offset") }
                return CoverArtChunk(totalSize: read.size, mimeType: name.hasSuffix(".png") ? "image/png" : "image/jpeg",
                                     bytes: read.bytes)
            }
            return nil
        }
    }

    // MARK: helpers

    func allSongs() async throws -> [SongInfo] { try await library.find([]).map(SongInfo.init) }

    func matching(_ filter: SongFilter) async throws -> [SongInfo] {
        let matcher: SongFilterMatcher
        do { matcher = try SongFilterMatcher(filter) } catch {
            throw MPDError(.argument, "Bad regular expression: \(error.pattern)")
        }
        let narrowed = Self.base(of: filter).map { [TagFilter(.base, $0)] } ?? []
        return try await library.find(narrowed).map(SongInfo.init).filter(matcher.matches)
    }

    /// A `base` directory every match must be under, when the filter says so at its top level.
    static func base(of filter: SongFilter) -> String? {
        switch filter {
        case let .base(directory): directory
        case let .and(parts): parts.lazy.compactMap(base(of:)).first
        default: nil
        }
    }

    static func ordered(_ a: SongInfo, _ b: SongInfo, by sort: SongSort) -> Bool {
        let result: Bool
        switch sort.key {
        case let .tag(type):
            let (x, y) = (a.first(type) ?? "", b.first(type) ?? "")
            if x == y { return a.uri < b.uri }
            result = type == .track || type == .disc ? (Int(x) ?? 0, x) < (Int(y) ?? 0, y) : x < y
        case .lastModified:
            result = (a.lastModified ?? 0) < (b.lastModified ?? 0)
        case .added:
            result = (a.added ?? 0) < (b.added ?? 0)
        }
        return sort.descending ? !result : result
    }
}

extension FermataBackend {
    public func scanIssues() async throws -> [ScanIssueLine] {
        try await library.issues().map { ScanIssueLine(path: $0.path, kind: $0.kind.rawValue, reason: $0.reason) }
    }

    /// The running (or last) scan's counters and the last finished scan's counts, for `scan_status`.
    public func scanReport() async throws -> ScanReport {
        let progress = library.progress
        var report = ScanReport()
        report.job = max(progress.job, requestedScan.withLock { $0 })
        // Asked for but not begun yet: report it as running, so a follower never sees the previous scan's end.
        report.phase = progress.job < report.job ? ScanProgress.Phase.scanning.rawValue : progress.phase.rawValue
        report.filesSeen = progress.filesSeen
        report.filesRead = progress.filesRead
        report.errors = progress.errors
        report.elapsed = progress.elapsed
        if let last = library.lastScan {
            report.lastSummary = [
                ("job", "\(last.job)"), ("mode", last.mode.rawValue), ("seen", "\(last.filesSeen)"),
                ("added", "\(last.added)"), ("updated", "\(last.updated)"), ("removed", "\(last.removed)"),
                ("restored", "\(last.identitiesRestored)"), ("issues", "\(last.issues)"), ("tracks", "\(last.tracks)"),
                ("seconds", ResponseText.fixed3(last.seconds)),
            ]
        }
        return report
    }
}
