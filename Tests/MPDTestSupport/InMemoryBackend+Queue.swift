import FermataCore
import MPDProtocol

/// The queue half of the in-memory backend: versioned entries, MPD's position rules.
extension InMemoryBackend {
    public func queueSongs(_ query: QueueQuery) async throws -> [SongInfo] {
        let all = queue.enumerated().map { queueSong($1, position: $0) }
        switch query {
        case .all: return all
        case let .positions(range): return Array(all[try checked(range)])
        case let .id(id):
            guard let song = all.first(where: { $0.queueID == id }) else { throw MPDError.noSuchSong() }
            return [song]
        case let .changes(version, window):
            let changed = all.filter { queue[$0.queuePosition!].version > version }
            guard let window else { return changed }
            let range = window.clamped(to: queue.count)
            return changed.filter { range.contains($0.queuePosition!) }
        case let .matching(filter):
            let matcher = try Self.matcher(filter)
            return all.filter { matcher.matches($0) }
        }
    }

    @discardableResult
    public func editQueue(_ edit: QueueEdit) async throws -> [EntryID] {
        switch edit {
        case let .add(source, position):
            let uris = try resolve(source)
            let index = try insertionIndex(position, count: queue.count)
            var span: PlaySpan?
            if case let .part(_, part) = source { span = part }
            let items = uris.map { uri in
                defer { nextID += 1 }
                return QueueItem(id: nextID, uri: uri, version: 0, span: span)
            }
            queue.insert(contentsOf: items, at: index)
            bumpVersion(from: index)
            return items.map(\.id)
        case let .delete(target):
            let range = try indices(target)
            if let current = player.entryID, queue[range].contains(where: { $0.id == current }) {
                player.entryID = nil
                setState(.stopped)
            }
            queue.removeSubrange(range)
            bumpVersion(from: range.lowerBound)
        case let .move(target, position):
            let range = try indices(target)
            let moving = Array(queue[range])
            queue.removeSubrange(range)
            let index = try insertionIndex(position, count: queue.count)
            queue.insert(contentsOf: moving, at: index)
            bumpVersion(from: min(range.lowerBound, index))
        case let .swap(first, second):
            let (a, b) = (try indices(first), try indices(second))
            guard a.count == 1, b.count == 1 else { throw MPDError.badSongIndex() }
            queue.swapAt(a.lowerBound, b.lowerBound)
            bumpVersion(from: min(a.lowerBound, b.lowerBound))
        case .clear:
            queue.removeAll()
            player.entryID = nil
            setState(.stopped)
            bumpVersion(from: 0)
        case let .shuffle(range):
            let bounds = try range.map { try checked($0) } ?? queue.indices
            queue[bounds].shuffle()
            bumpVersion(from: bounds.lowerBound)
        case let .priority(priority, targets):
            let ranges = try targets.map { target -> Range<Int> in
                if case let .id(id) = target {
                    guard let index = queue.firstIndex(where: { $0.id == id }) else { throw MPDError.noSuchSong() }
                    return index..<(index + 1)
                }
                guard case let .positions(range) = target, range.start <= queue.count else {
                    throw MPDError.badSongIndex()
                }
                return range.clamped(to: queue.count)
            }
            queueVersion = queueVersion == UInt32.max ? 1 : queueVersion + 1
            for range in ranges {
                for index in range {
                    queue[index].priority = priority
                    queue[index].version = queueVersion
                }
            }
            idle.publish(.playlist)
        case let .setRange(id, span):
            guard let index = queue.firstIndex(where: { $0.id == id }) else { throw MPDError.noSuchSong() }
            guard player.entryID != id || player.state == .stopped else {
                throw MPDError(.permission, "Cannot edit the current song")
            }
            queue[index].span = span
            bumpVersion(from: index)
        }
        return []
    }

    func queueSong(_ item: QueueItem, position: Int) -> SongInfo {
        var song = song(uri: item.uri) ?? SongInfo(uri: item.uri)
        song.queuePosition = position
        song.queueID = item.id
        song.priority = item.priority
        song.span = item.span
        return song
    }

    /// MPD's rule: the end is clamped, a start past it is `Bad song index`.
    func checked(_ range: PositionRange) throws -> Range<Int> {
        let end = min(range.end ?? queue.count, queue.count)
        guard range.start <= end else { throw MPDError.badSongIndex() }
        return range.start..<end
    }

    func indices(_ target: QueueTarget) throws -> Range<Int> {
        switch target {
        case let .positions(range):
            let bounds = try checked(range)
            guard !bounds.isEmpty else { throw MPDError.badSongIndex() }
            return bounds
        case let .id(id):
            guard let index = queue.firstIndex(where: { $0.id == id }) else { throw MPDError.noSuchSong() }
            return index..<index + 1
        }
    }

    func insertionIndex(_ position: QueueInsertPosition, count: Int) throws -> Int {
        let current = player.entryID.flatMap { id in queue.firstIndex { $0.id == id } }
        let index: Int
        switch position {
        case .end: return count
        case let .absolute(value): index = value
        case let .afterCurrent(offset):
            guard let current else { throw MPDError(.argument, "No current song") }
            index = current + 1 + offset
        case let .beforeCurrent(offset):
            guard let current else { throw MPDError(.argument, "No current song") }
            index = current - offset
        }
        guard (0...count).contains(index) else { throw MPDError.badSongIndex() }
        return index
    }

    func resolve(_ source: QueueSource) throws -> [String] {
        switch source {
        case let .uri(uri, recursive):
            if song(uri: uri) != nil { return [uri] }
            let inside = library.map(\.uri).filter { uri.isEmpty || $0.hasPrefix(uri + "/") }.sorted()
            guard recursive, !inside.isEmpty else {
                throw MPDError.notFound(recursive ? "No such directory" : "No such song")
            }
            return inside
        case let .matching(query): return try matching(query).map(\.uri)
        case let .storedPlaylist(name, range):
            guard let uris = storedPlaylists[name]?.uris else { throw MPDError.noSuchPlaylist() }
            return Array(uris[(range ?? .all).clamped(to: uris.count)])
        case let .part(uri, _):
            guard song(uri: uri) != nil else { throw MPDError.noSuchSong() }
            return [uri]
        }
    }

    /// A new queue version; entries from `index` on count as changed in it.
    func bumpVersion(from index: Int) {
        queueVersion = queueVersion == UInt32.max ? 1 : queueVersion + 1
        for position in queue.indices where position >= index { queue[position].version = queueVersion }
        idle.publish(.playlist)
    }

    static func matcher(_ filter: SongFilter) throws -> SongFilterMatcher {
        do { return try SongFilterMatcher(filter) } catch {
            throw MPDError(.argument, "Invalid regex: \(error.pattern)")
        }
    }
}
