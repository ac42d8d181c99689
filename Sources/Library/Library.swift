import DatabaseFile
import Decoders
import FermataCore
import Foundation
import GRDB
import Logging
import Synchronization

/// The music library: scans the music directory into the state database and answers the daemon's and the MPD
/// handlers' questions (lookups, `lsinfo`, `find`/`search`/`list`/`count`, full-text search, stickers, custom
/// metadata). It never scans by itself: the daemon calls `scan` when configured to at start, and on `update`.
///
/// Sendable; share one instance. Every method may be called from any task: database work runs on GRDB's queues and
/// scans on threads of their own at lowered priority, never on the cooperative pool or the audio threads.
public final class Library: Sendable {
    /// The state database file, opened with at least `DatabaseSchema.library`.
    public let database: FermataDatabase
    /// The music directory (absolute), the root every track path is relative to.
    public let musicDirectory: String
    let scans: ScanCoordinator
    /// Counts the commits that changed tracks or directories (`contentVersion`).
    private let changes = ContentVersion()
    private let keptQueueIndex = Mutex<QueueFileIndex?>(nil)

    public init(
        database: FermataDatabase, musicDirectory: String, options: LibraryOptions = LibraryOptions(),
        logger: Logger = Logger(label: "fermata.library")
    ) {
        self.database = database
        database.pool.add(transactionObserver: changes, extent: .observerLifetime)
        var root = musicDirectory
        while root.count > 1, root.hasSuffix("/") { root.removeLast() }
        self.musicDirectory = root
        scans = ScanCoordinator(database: database, root: root, options: options, logger: logger)
    }

    /// A number that changes whenever a commit changes the library's tracks or directories: what a cache of listings
    /// compares (read it before building an answer, keep the answer with it).
    public var contentVersion: Int { changes.value }

    // MARK: Scanning

    /// Scans the music directory, or only `directory` below it (MPD's `update DIR`: a path relative to the music
    /// directory; a file or a folder that is gone scans the nearest folder above it that exists), and returns what
    /// changed. Waits for a scan already running; cancelling the task stops the scan (what it committed stays).
    /// Throws `LibraryError.musicDirectoryUnavailable` when the directory cannot be listed (nothing is removed then).
    public func scan(_ mode: ScanMode = .incremental, under directory: String? = nil) async throws -> ScanSummary {
        try await scans.scan(mode, scope: Self.scope(directory), job: scans.reserveJob())
    }

    /// Starts a scan in the background and returns its job number at once (MPD's `update`, `update DIR`).
    @discardableResult
    public func startScan(_ mode: ScanMode = .incremental, under directory: String? = nil) -> Int {
        let job = scans.reserveJob()
        let scope = Self.scope(directory)
        Task.detached(priority: .utility) { [scans] in _ = try? await scans.scan(mode, scope: scope, job: job) }
        return job
    }

    /// A scan's part of the tree as raw relative bytes ("", "/" and nil: all of it).
    private static func scope(_ directory: String?) -> [UInt8] {
        guard let directory else { return [] }
        var bytes = Array(directory.utf8)
        while bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
        while bytes.first == UInt8(ascii: "/") { bytes.removeFirst() }
        return bytes
    }

    /// Stops the running scan, if any.
    public func cancelScan() {
        scans.cancel()
    }

    /// The current or last scan's progress.
    public var progress: ScanProgress { scans.progress.snapshot }

    /// Progress snapshots from now on (for `idle update`, a CLI progress line).
    public func progressUpdates() -> AsyncStream<ScanProgress> { scans.progress.updates() }

    /// The last finished scan's summary since this library was created.
    public var lastScan: ScanSummary? { scans.lastSummary }

    /// Files rejected or repaired, and parts of the tree not entered, as of the last scan.
    public func issues() async throws -> [ScanIssue] {
        try await database.pool.read { db in
            let records = try ScanIssueRecord.fetchAll(
                db, sql: "SELECT path, kind, reason FROM scan_issue ORDER BY path, kind")
            return records.compactMap { record in
                ScanIssue.Kind(rawValue: record.kind).map {
                    ScanIssue(path: record.path, kind: $0, reason: record.reason)
                }
            }
        }
    }

    // MARK: Lookups

    /// The track at `path` (relative to the music directory), or nil.
    public func track(path: String) async throws -> Track? {
        try await database.pool.read { db in
            try Track.filter(Column("path") == path).fetchOne(db)
        }
    }

    /// The absolute path of a track's file as raw bytes, exact even when its name is not valid UTF-8 (open those with
    /// `open(2)` and hand the decoders `/proc/self/fd/N`, as the scanner does).
    public func fileSystemPath(of track: Track) -> [UInt8] {
        Array(musicDirectory.utf8) + [UInt8(ascii: "/")] + (track.pathBytes ?? Array(track.path.utf8))
    }

    /// The tracks whose identity is `identity` (one, or several copies of the same audio).
    public func tracks(identity: Int64) async throws -> [Track] {
        try await database.pool.read { db in
            try Track.filter(Column("identity_id") == identity).order(Column("path")).fetchAll(db)
        }
    }

    /// The ReplayGain of each of `paths` (relative to the music directory), in their order, nil for a path the
    /// library does not have (a list of `add`s, a stored playlist loaded into the queue), from memory
    /// (`QueueFileIndex`).
    public func replayGains(paths: [String]) async throws -> [ReplayGainInfo?] {
        guard !paths.isEmpty else { return [] }
        return try await queueIndex().replayGains(paths)
    }

    /// The path and ReplayGain of every track below `directory` ("" is the top), sorted by path: what a queue
    /// `add` of a directory needs, from memory (`QueueFileIndex`).
    public func queueFiles(under directory: String) async throws -> [(path: String, replayGain: ReplayGainInfo)] {
        try await queueIndex().files(under: directory)
    }

    /// Reads the tracks queue adds need into memory now (at start and after a scan), so the next add finds them there.
    public func warmQueueIndex() async {
        _ = try? await queueIndex()
    }

    /// The in-memory index of the library as it is now: the one kept, or a new one when the library has changed.
    private func queueIndex() async throws -> QueueFileIndex {
        let version = contentVersion
        if let kept = keptQueueIndex.withLock({ $0 }), kept.version == version { return kept }
        let built = try await database.pool.read { db in try QueueFileIndex.build(db, version: version) }
        keptQueueIndex.withLock { kept in
            if (kept?.version ?? .min) <= built.version { kept = built }
        }
        return built
    }

    /// Every directory and track below `path` ("" is the top), each list sorted by path, in one read (MPD
    /// `listall`/`listallinfo`: one query instead of one per directory). Nil when there is no such directory.
    public func subtree(_ path: String) async throws -> DirectoryListing? {
        try await database.pool.read { db in
            if !path.isEmpty,
               try Int64.fetchOne(db, sql: "SELECT id FROM directory WHERE path = ?", arguments: [path]) == nil {
                return nil
            }
            let (range, arguments) = LibrarySearch.below(path)
            let directories = try String.fetchAll(db, sql: """
                SELECT path FROM directory WHERE \(range) ORDER BY path
                """, arguments: arguments)
            let tracks = try Track.fetchAll(db, sql: """
                SELECT \(Track.columns) FROM track WHERE \(range) ORDER BY path
                """, arguments: arguments)
            return DirectoryListing(path: path, directories: directories, tracks: tracks)
        }
    }

    /// A directory's subdirectories and tracks (MPD `lsinfo`); "" is the top. Nil when there is no such directory.
    public func directory(_ path: String) async throws -> DirectoryListing? {
        try await database.pool.read { db in
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM directory WHERE path = ?", arguments: [path])
            else { return path.isEmpty ? DirectoryListing(path: "", directories: [], tracks: []) : nil }
            let directories = try String.fetchAll(db, sql: """
                SELECT path FROM directory WHERE parent_id = ? ORDER BY path
                """, arguments: [id])
            let tracks = try Track.filter(Column("directory_id") == id).order(Column("path")).fetchAll(db)
            return DirectoryListing(path: path, directories: directories, tracks: tracks)
        }
    }

    // MARK: Searches

    /// Tracks matching every filter exactly, case-sensitively (MPD `find`), sorted by path.
    public func find(_ filters: [TagFilter], limit: Int? = nil) async throws -> [Track] {
        try await database.pool.read { db in try LibrarySearch.tracks(db, filters, match: .exact, limit: limit) }
    }

    /// Tracks whose tags contain every filter's value, ignoring case (MPD `search`), sorted by path.
    public func search(_ filters: [TagFilter], limit: Int? = nil) async throws -> [Track] {
        try await database.pool.read { db in try LibrarySearch.tracks(db, filters, match: .substring, limit: limit) }
    }

    /// Full-text search over title, artist, album and path: each word matches the start of a word (so "beat sub"
    /// finds "Beatles – Yellow Submarine"), diacritics ignored, best matches first.
    public func fullTextSearch(_ text: String, limit: Int = 100) async throws -> [Track] {
        try await database.pool.read { db in try LibrarySearch.fullText(db, text, limit: limit) }
    }

    /// Distinct values of `tag` among tracks matching `filters` (MPD `list`): all artists, the albums of an
    /// artist, the genres…; with `groupedBy`, each value under the values of those tags.
    public func list(
        _ tag: TrackTag, filters: [TagFilter] = [], groupedBy: [TrackTag] = []
    ) async throws -> [TagListRow] {
        try await database.pool.read { db in try LibrarySearch.list(db, tag, filters: filters, groupedBy: groupedBy) }
    }

    /// Songs and playtime of tracks matching `filters` (MPD `count`), per value of `groupedBy` when given.
    public func count(_ filters: [TagFilter] = [], groupedBy: TrackTag? = nil) async throws -> [TrackCount] {
        try await database.pool.read { db in try LibrarySearch.count(db, filters, groupedBy: groupedBy) }
    }

    /// Library-wide figures (MPD `stats`).
    public func stats() async throws -> LibraryStats {
        try await database.pool.read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT (SELECT count(DISTINCT artist) FROM track), (SELECT count(DISTINCT album) FROM track),
                       (SELECT count(*) FROM track), (SELECT total(duration) FROM track),
                       (SELECT finished_at FROM scan_state WHERE id = 1)
                """)
            return LibraryStats(artists: row?[0] ?? 0, albums: row?[1] ?? 0, songs: row?[2] ?? 0,
                                playtime: row?[3] ?? 0,
                                lastScan: (row?[4] as Int64?).map { Date(timeIntervalSince1970: Double($0)) })
        }
    }

    /// The identity of the track at `path`; throws `noSuchTrack` when there is none.
    func identity(_ db: Database, _ path: String) throws -> Int64 {
        guard let id = try Int64.fetchOne(db, sql: "SELECT identity_id FROM track WHERE path = ?", arguments: [path])
        else { throw LibraryError.noSuchTrack(path) }
        return id
    }
}

/// A `scan_issue` row as `Library.issues()` reads it; `kind` is a `ScanIssue.Kind` raw value (one this version does not
/// know is skipped).
private struct ScanIssueRecord: Decodable, FetchableRecord {
    var path: String
    var kind: String
    var reason: String
}
