import FermataCore

/// Handlers for the queue (MPD's "current playlist"): adding, deleting, moving, reading, version changes.
///
/// Stateless; run on the executing command's task.
enum QueueCommands {
    static func add(_ c: inout CommandContext) async throws {
        let position = c.argument(1) == nil ? QueueInsertPosition.end : try c.insertPosition(1)
        try await c.backend.editQueue(.add(.uri(try c.uri(0), recursive: true), at: position))
    }

    static func addID(_ c: inout CommandContext) async throws {
        let position = c.argument(1) == nil ? QueueInsertPosition.end : try c.insertPosition(1)
        let uri = try c.uri(0, unsafe: .noSuchSong())
        // MPD's addid takes one song: a directory is `No such song` (the library's listing tells; a name it does not
        // know is left to the backend).
        if let entries = try? await c.backend.browse(uri, recursive: false), !isOneSong(entries, uri) {
            throw MPDError.noSuchSong()
        }
        let ids: [EntryID]
        do {
            ids = try await c.backend.editQueue(.add(.uri(uri, recursive: false), at: position))
        } catch let error as MPDError where error.code == .noExist {
            throw MPDError.noSuchSong()  // MPD looks one song up: whatever is missing, the song is
        }
        guard let id = ids.first else { throw MPDError.notFound("No such song") }
        c.response.line("Id", id)
    }

    /// Whether a listing is the song `uri` itself (what `browse` answers for a song).
    static func isOneSong(_ entries: [DirectoryEntry], _ uri: String) -> Bool {
        guard entries.count == 1, case let .song(song) = entries[0] else { return false }
        return song.uri == uri
    }

    /// `prio PRIORITY START:END...`: MPD's `ParseUnsigned(0, 255)` and one range per argument.
    static func priority(_ c: inout CommandContext) async throws {
        let priority = UInt8(try ArgumentParser.unsigned(c.arguments[0], max: 255))
        var ranges: [QueueTarget] = []
        for index in 1..<c.arguments.count { ranges.append(.positions(try c.range(index))) }
        try await c.backend.editQueue(.priority(priority, ranges))
    }

    /// `prioid PRIORITY ID...`.
    static func priorityID(_ c: inout CommandContext) async throws {
        let priority = UInt8(try ArgumentParser.unsigned(c.arguments[0], max: 255))
        var ids: [QueueTarget] = []
        for index in 1..<c.arguments.count { ids.append(.id(try c.entryID(index))) }
        try await c.backend.editQueue(.priority(priority, ids))
    }

    /// `rangeid ID START:END`: the part of the song the entry plays, in seconds, either end optional; `:` plays all
    /// of it again. MPD's words: `Bad range`; the entry playing is `Cannot edit the current song`.
    static func rangeID(_ c: inout CommandContext) async throws {
        let id = try c.entryID(0)
        guard let span = PlaySpan.parseMPDRange(c.arguments[1]) else { throw MPDError.badArgument("Bad range") }
        try await c.backend.editQueue(.setRange(id, span))
    }

    static func delete(_ c: inout CommandContext) async throws {
        try await c.backend.editQueue(.delete(.positions(try c.range(0))))
    }

    static func deleteID(_ c: inout CommandContext) async throws {
        try await c.backend.editQueue(.delete(.id(try c.entryID(0))))
    }

    /// `move FROM[:TO] TO`: as MPD, a range without an end (`START:`, or `-1` for everything) is refused.
    static func move(_ c: inout CommandContext) async throws {
        let range = try c.range(0)
        guard range.end != nil else { throw MPDError.badArgument("Open-ended range not supported") }
        try await c.backend.editQueue(.move(.positions(range), to: try c.insertPosition(1)))
    }

    static func moveID(_ c: inout CommandContext) async throws {
        try await c.backend.editQueue(.move(.id(try c.entryID(0)), to: try c.insertPosition(1)))
    }

    /// `swap POS1 POS2`: MPD answers a position past the end with `Bad song index`.
    static func swap(_ c: inout CommandContext) async throws {
        let (first, second) = (try c.unsigned(0), try c.unsigned(1))
        try await c.backend.editQueue(.swap(.positions(.single(first)), .positions(.single(second))))
    }

    /// `swapid ID1 ID2`: an id not in the queue is `No such song`.
    static func swapID(_ c: inout CommandContext) async throws {
        try await c.backend.editQueue(.swap(.id(try c.entryID(0)), .id(try c.entryID(1))))
    }

    static func clear(_ c: inout CommandContext) async throws { try await c.backend.editQueue(.clear) }

    static func shuffle(_ c: inout CommandContext) async throws {
        try await c.backend.editQueue(.shuffle(c.argument(0) == nil ? nil : try c.range(0)))
    }

    static func playlistInfo(_ c: inout CommandContext) async throws {
        let query = c.argument(0) == nil ? QueueQuery.all : .positions(try c.range(0))
        c.printSongs(try await c.backend.queueSongs(query))
    }

    static func playlistID(_ c: inout CommandContext) async throws {
        let query = c.argument(0) == nil ? QueueQuery.all : .id(try c.entryID(0))
        c.printSongs(try await c.backend.queueSongs(query))
    }

    static func changes(_ c: inout CommandContext) async throws {
        c.printSongs(try await changedSongs(c))
    }

    static func changesPositionID(_ c: inout CommandContext) async throws {
        for song in try await changedSongs(c) {
            if c.response.isFull { break }
            c.response.line("cpos", song.queuePosition ?? 0)
            c.response.line("Id", song.queueID ?? 0)
        }
    }

    static func find(_ c: inout CommandContext) async throws { try await match(&c, foldCase: false) }
    static func search(_ c: inout CommandContext) async throws { try await match(&c, foldCase: true) }

    /// `playlistfind`/`playlistsearch FILTER [sort [-]TAG] [window START:END]` (sort and window: MPD 0.24's
    /// `PrintQueue`). Unsorted, the window counts matches but its start is checked against the queue's length; sorted
    /// (stable), against the matches. A start past it is `Bad song index`.
    static func match(_ c: inout CommandContext, foldCase: Bool) async throws {
        let query = try MatchArguments(c, foldCase: foldCase, allowPosition: false).query
        var songs = try await c.backend.queueSongs(.matching(query.filter))
        if let sort = query.sort { songs.sort(by: sort.ordered) }
        if let window = query.window {
            let bound = query.sort == nil ? try await c.backend.status().queueLength : songs.count
            guard window.start <= bound else { throw MPDError.badSongIndex() }
            songs = Array(songs[window.clamped(to: songs.count)])
        }
        c.printSongs(songs)
    }

    /// `plchanges VERSION [START:END]`'s songs. As MPD, a version newer than the queue's (`plchanges -1`, or one from
    /// before a restart) means the client knows nothing of this queue: every entry (in the window) is reported.
    static func changedSongs(_ c: CommandContext) async throws -> [SongInfo] {
        let version = try ArgumentParser.version(c.arguments[0])
        let window = c.argument(1) == nil ? nil : try c.range(1)
        let songs = try await c.backend.queueSongs(.changes(since: version, window: window))
        guard songs.isEmpty, version > (try await c.backend.status().queueVersion) else { return songs }
        let all = try await c.backend.queueSongs(.all)
        return Array(all[(window ?? .all).clamped(to: all.count)])
    }

    /// The id of the entry at `position`, or `Bad song index`.
    static func entryID(at position: Int, _ backend: any MPDBackend) async throws -> EntryID {
        guard let id = try await backend.queueSongs(.positions(.single(position))).first?.queueID else {
            throw MPDError.badSongIndex()
        }
        return id
    }
}
