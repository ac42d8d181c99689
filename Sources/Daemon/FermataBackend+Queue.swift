import Decoders
import Engine
import FermataCore
import Foundation
import Library
import MPDProtocol
import Player
import Streams

/// Queue commands: reading with tags from the library, and edits through the player (durable before they return).
extension FermataBackend {
    public func queueSongs(_ query: QueueQuery) async throws -> [SongInfo] {
        let view = await player.queueView()
        let entries = view.queue.entries
        var selected: [(Int, QueueEntry)]
        switch query {
        case .all:
            selected = Array(entries.enumerated())
        case let .positions(range):
            guard range.start <= entries.count else { throw MPDError.badSongIndex() }
            selected = range.clamped(to: entries.count).map { ($0, entries[$0]) }
        case let .id(id):
            guard let index = view.queue.index(of: id) else { throw MPDError.noSuchSong() }
            selected = [(index, entries[index])]
        case let .changes(version, window):
            selected = view.queue.changes(since: Int(version)).map { ($0.position, $0.entry) }
            if let window { selected = selected.filter { window.clamped(to: entries.count).contains($0.0) } }
        case .matching:
            selected = Array(entries.enumerated())
        }
        var songs: [SongInfo] = []
        for (position, entry) in selected {
            var song = await song(uri: entry.uri) ?? SongInfo(uri: entry.uri)
            if let stream = view.streams[entry.id] { song.tags += Self.tags(of: stream) }
            song.queuePosition = position
            song.queueID = entry.id
            song.priority = entry.priority
            if let span = entry.span {
                song.span = span
                // MPD's duration of a ranged song: the range's length (to the file's end when open).
                let end = span.endMilliseconds.map { Double($0) / 1000 } ?? song.duration
                song.duration = end.map { max(0, $0 - Double(span.startMilliseconds) / 1000) }
            }
            songs.append(song)
        }
        if case let .matching(filter) = query {
            let matcher = try SongFilterMatcher(filter)
            songs = songs.filter(matcher.matches)
        }
        return songs
    }

    @discardableResult
    public func editQueue(_ edit: MPDProtocol.QueueEdit) async throws -> [EntryID] {
        do {
            switch edit {
            case let .add(source, position):
                return try await add(source, at: position)
            case let .delete(target):
                // MPD clips a range to the queue: one starting at its end deletes nothing (and is no error).
                try await player.remove(resolving: { Set(try Self.entries(target, $0, startMayBeEnd: true).map(\.id)) })
            case let .move(target, position):
                try await move(target, to: position)
            case let .swap(first, second):
                try await player.swap(resolving: { view in
                    let (a, b) = (try Self.entries(first, view), try Self.entries(second, view))
                    guard a.count == 1, b.count == 1, let i = view.queue.index(of: a[0].id),
                          let j = view.queue.index(of: b[0].id) else { throw MPDError.badSongIndex() }
                    return (i, j)
                })
            case .clear:
                await player.clear()
                await cardService.withLock { $0 }?.queueCleared()
            case let .shuffle(range):
                try await player.shuffle(resolving: { view in
                    guard let range else { return nil }
                    guard range.start <= view.queue.count else { throw MPDError.badSongIndex() }
                    return range.clamped(to: view.queue.count)
                })
            case let .priority(priority, targets):
                try await player.setPriority(priority, resolving: { view in
                    try targets.map { try Self.priorityRange($0, view) }
                })
            case let .setRange(id, span):
                try await player.setSpan(span, of: id)
            }
        } catch let error as Player.ActionError {
            throw Self.mpdError(error)
        }
        return []
    }

    /// Adds what `source` names at `position`, resolved against the queue in the same player turn as the insert.
    /// Appending needs no look at the queue (a list of 10,000 `add`s: no queue view built for each).
    private func add(_ source: QueueSource, at position: QueueInsertPosition) async throws -> [EntryID] {
        let files = try await queueFiles(try await resolveFiles(source))
        let spans = files.contains { $0.span != nil } ? files.map(\.span) : []
        if position == .end {
            return try await player.insert(uris: files.map(\.uri), replayGain: files.map(\.replayGain), spans: spans,
                                           resolvingPosition: { _ in nil })
        }
        return try await player.insert(uris: files.map(\.uri), replayGain: files.map(\.replayGain), spans: spans,
                                       resolvingPosition: { try Self.insertionIndex(position, $0) })
    }

    private func move(_ target: QueueTarget, to position: QueueInsertPosition) async throws {
        try await player.move(resolving: { view in
            // MPD reads the destination before it checks a range (`move`), after it looks the id up (`moveid`): a
            // relative one needs a current song.
            if case let .id(id) = target, view.queue.entry(id: id) == nil { throw MPDError.noSuchSong() }
            if view.current == nil, position != .end, !Self.isAbsolute(position) {
                throw MPDError(.playerSync, "No current song")
            }
            let moving = try Self.entries(target, view)
            guard let first = moving.first.flatMap({ view.queue.index(of: $0.id) }) else { return nil }
            let range = first..<(first + moving.count)
            let destination = try Self.moveDestination(position, range, view)
            guard destination + moving.count <= view.queue.count else { throw MPDError.badSongIndex() }
            return QueueMove(range: range, destination: destination)
        })
    }

    private static func isAbsolute(_ position: QueueInsertPosition) -> Bool {
        if case .absolute = position { true } else { false }
    }

    /// Where a moved run lands, as MPD's `ParseMoveDestination`: a relative place counts from the current entry as
    /// it stands once the run is taken out, which must not hold the current entry; offsets past what fits are
    /// `Number too large`.
    private static func moveDestination(_ position: QueueInsertPosition, _ range: Range<Int>, _ view: QueueView) throws
        -> Int {
        let count = view.queue.count
        func relative(_ offset: Int, after: Bool) throws -> Int {
            guard var current = view.current.flatMap(view.queue.index(of:)) else {
                throw MPDError(.playerSync, "No current song")
            }
            guard !range.contains(current) else {
                throw MPDError.badArgument("Cannot move current song relative to itself")
            }
            if current >= range.upperBound { current -= range.count }
            guard offset <= count - current - range.count, after || offset <= current else {
                throw MPDError.badArgument("Number too large: \(offset)")
            }
            return after ? current + 1 + offset : current - offset
        }
        switch position {
        case .end: return count - range.count
        case let .absolute(index):
            guard index <= count - range.count else { throw MPDError.badSongIndex() }
            return index
        case let .afterCurrent(offset): return try relative(offset, after: true)
        case let .beforeCurrent(offset): return try relative(offset, after: false)
        }
    }

    /// A list's run of `add`s in one turn: every URI the library knows is found in one read (the others are checked
    /// one by one, as `add` does), and all that succeeded before the first failure are appended with one player call.
    public func appendEach(_ uris: [String]) async -> (added: Int, failure: (any Error)?) {
        let known = (try? await library.replayGains(paths: uris)) ?? Array(repeating: nil, count: uris.count)
        var files: [SourceFile] = []
        files.reserveCapacity(uris.count)
        var added = 0
        var failure: (any Error)?
        for (uri, gain) in zip(uris, known) {
            if let gain {
                files.append(SourceFile(uri: uri, replayGain: gain))
            } else {
                do { files += try await resolveFiles(.uri(uri, recursive: true)) } catch {
                    failure = error
                    break
                }
            }
            added += 1
        }
        do {
            let entries = try await queueFiles(files)
            try await player.insert(uris: entries.map(\.uri), replayGain: entries.map(\.replayGain),
                                    resolvingPosition: { _ in nil })
        } catch let error as Player.ActionError {
            return (0, Self.mpdError(error))
        } catch {
            return (0, error)
        }
        return (added, failure)
    }

    /// The tags MPD shows for a stream: its title now and its station (`Title:`, `Name:`).
    static func tags(of stream: StreamTags) -> [TagValue] {
        var tags: [TagValue] = []
        if let title = stream.title { tags.append(TagValue(.title, title)) }
        if let name = stream.name { tags.append(TagValue(.name, name)) }
        return tags
    }

    /// A file a queue source names, with the ReplayGain the library stored for it when the source came from the
    /// library (nil: to be looked up).
    struct SourceFile {
        var uri: String
        var replayGain: ReplayGainInfo?
        /// The part of the file to play (a stored playlist's range or section), nil: all of it.
        var span: PlaySpan?
    }

    /// The queue entries for `files`: each one's ReplayGain from the library (one database read for all those not
    /// known yet), and for a file the library does not know, its tags read on `BlockingWork` — never inside the
    /// player actor.
    func queueFiles(_ files: [SourceFile]) async throws -> [(uri: String, replayGain: ReplayGainInfo, span: PlaySpan?)] {
        let missing = files.filter { $0.replayGain == nil }.map(\.uri)
        var known: [String: ReplayGainInfo] = [:]
        for (uri, gain) in zip(missing, try await library.replayGains(paths: missing)) { known[uri] = gain }
        let unknown = missing.filter { known[$0] == nil }.map { (uri: $0, path: library.musicDirectory + "/" + $0) }
        let read = unknown.isEmpty ? [:] : await BlockingWork.run {
            Dictionary(unknown.map { ($0.uri, (try? TagReader.read(path: $0.path))?.replayGain ?? ReplayGainInfo()) },
                       uniquingKeysWith: { first, _ in first })
        }
        return files.map { ($0.uri, $0.replayGain ?? known[$0.uri] ?? read[$0.uri] ?? ReplayGainInfo(), $0.span) }
    }

    /// The files a queue source names, checked against the music directory.
    func resolve(_ source: QueueSource) async throws -> [String] { try await resolveFiles(source).map(\.uri) }

    /// The files a queue source names, checked against the music directory, with the library's ReplayGain where the
    /// source came from the library.
    func resolveFiles(_ source: QueueSource) async throws -> [SourceFile] {
        switch source {
        case let .uri(uri, _):
            // A stream is queued as it is, without fetching it (MPD's `add URL`): a failure shows when it plays.
            if PlayableItem.isLive(uri) {
                guard StreamURL.isStream(uri) else { throw MPDError(.argument, "Malformed stream URL") }
                return [SourceFile(uri: uri, replayGain: ReplayGainInfo())]
            }
            // A file the library knows is there (MPD adds from its database too): no file-system call needed.
            if !uri.isEmpty, URIValidator.isSafe(uri), let gain = try await library.replayGains(paths: [uri]).first ?? nil {
                return [SourceFile(uri: uri, replayGain: gain)]
            }
            let guarded = musicGuard
            let isDirectory = try await BlockingWork.run { () throws -> Bool in
                switch RawFiles.kind(try guarded.resolve(uri)) {
                case nil: throw MPDError(.noExist, "No such directory")
                case .directory: return true
                case .file, .other: return false
                }
            }
            guard isDirectory else { return [SourceFile(uri: uri)] }
            let files = try await library.queueFiles(under: uri)
            guard !files.isEmpty else { throw MPDError(.noExist, "No such directory") }
            return files.map { SourceFile(uri: $0.path, replayGain: $0.replayGain) }
        case let .matching(query):
            return try await songs(query).map { SourceFile(uri: $0.uri) }
        case let .storedPlaylist(name, range):
            let store = playlists
            let lines = try await BlockingWork.run { try store.read(name) }
            var files: [SourceFile] = []
            for line in range.map({ Array(lines[$0.clamped(to: lines.count)]) }) ?? lines {
                // A stream has no ReplayGain to look up (nor a file to read it from).
                files.append(PlayableItem.isLive(line.uri) ? SourceFile(uri: line.uri, replayGain: ReplayGainInfo())
                                 : SourceFile(uri: line.uri, span: await currentSpan(line)))
            }
            return files
        case let .part(uri, span):
            // One song: a part of a folder means nothing.
            let files = try await resolveFiles(.uri(uri, recursive: false))
            guard files.count == 1, files[0].uri == uri else { throw MPDError.noSuchSong() }
            return [SourceFile(uri: uri, replayGain: files[0].replayGain, span: span)]
        }
    }

    private static func insertionIndex(_ position: QueueInsertPosition, _ view: QueueView) throws -> Int? {
        let current = view.current.flatMap(view.queue.index(of:))
        switch position {
        case .end: return nil
        case let .absolute(index):
            guard index >= 0, index <= view.queue.count else { throw MPDError.badSongIndex() }
            return index
        // MPD's `ParseInsertPosition`: an offset past the queue's end (or before its start) is `Number too large`.
        case let .afterCurrent(offset):
            guard let current else { throw MPDError(.playerSync, "No current song") }
            guard offset <= view.queue.count - current - 1 else { throw MPDError.badArgument("Number too large: \(offset)") }
            return current + 1 + offset
        case let .beforeCurrent(offset):
            guard let current else { throw MPDError(.playerSync, "No current song") }
            guard offset <= current else { throw MPDError.badArgument("Number too large: \(offset)") }
            return current - offset
        }
    }

    /// The positions a `prio` range or a `prioid` id names: a range starting past the end is `Bad song index` (one
    /// running past it is cut there, as MPD's `CheckClip`); an unknown id `No such song`.
    private static func priorityRange(_ target: QueueTarget, _ view: QueueView) throws -> Range<Int> {
        switch target {
        case let .id(id):
            guard let index = view.queue.index(of: id) else { throw MPDError.noSuchSong() }
            return index..<(index + 1)
        case let .positions(range):
            guard range.start <= view.queue.count else { throw MPDError.badSongIndex() }
            return range.clamped(to: view.queue.count)
        }
    }

    private static func entries(_ target: QueueTarget, _ view: QueueView, startMayBeEnd: Bool = false) throws
        -> [QueueEntry] {
        switch target {
        case let .id(id):
            guard let entry = view.queue.entry(id: id) else { throw MPDError.noSuchSong() }
            return [entry]
        case let .positions(range):
            guard range.start < view.queue.count || (startMayBeEnd && range.start == view.queue.count) else {
                throw MPDError.badSongIndex()
            }
            return Array(view.queue.entries[range.clamped(to: view.queue.count)])
        }
    }
}
