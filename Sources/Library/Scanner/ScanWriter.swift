import Decoders
import Foundation
import GRDB

/// Writes what the readers found, in batched transactions (files sorted by path, for locality in the path index) on
/// statements bound through SQLite's C API: new tracks with a fresh identity number, changed tracks in place, rejected
/// files as issues. Identity re-attachment and removals wait for `ScanFinisher`, once the whole tree has been seen.
///
/// Big batches are cheaper per file (each commit rewrites the index pages it touched), but a batch holds the
/// database's only writer: queue edits and metadata wait for it. So the batch size adapts to keep each transaction
/// near `targetTransaction` (about 1,000 files here; fewer on a slower board).
///
/// Not thread-safe: used by the scan thread only.
final class ScanWriter {
    /// A changed file whose audio fingerprint differs from before.
    struct FingerprintChange {
        var trackID: Int64
        var identityID: Int64
        var oldFingerprint: String
        var fingerprint: String
        var path: String
    }

    private let pool: DatabasePool
    private let scan: Int64
    private let now: Int64
    /// Files per transaction, adapted after each commit to its duration.
    private(set) var batchRows = 500
    private var nextIdentity: Int64
    private var directoryIDs: [String: Int64]
    private var lastDirectory: (bytes: ArraySlice<UInt8>, id: Int64)?
    private var pending: [ReadOutcome] = []
    /// The first track row the current batch inserted (its search entries are added in bulk at the end).
    private var firstInserted: Int64?

    private(set) var added = 0
    private(set) var updated = 0
    private(set) var issuesFound = 0
    /// Known tracks whose file is now rejected or gone: removed by the finisher.
    private(set) var removedTrackIDs: [Int64] = []
    private(set) var fingerprintChanges: [FingerprintChange] = []

    /// The longest a write transaction should hold the database's writer.
    static let targetTransaction = Duration.milliseconds(20)
    /// Bounds of the adaptive batch size.
    static let batchRange = 100...2000

    /// How the search index follows this scan's changes (shared with the finisher).
    let searchIndex: SearchIndexBudget

    init(pool: DatabasePool, scan: Int64, now: Int64, nextIdentity: Int64, directoryIDs: [String: Int64],
         searchIndex: SearchIndexBudget) {
        self.searchIndex = searchIndex
        self.pool = pool
        self.scan = scan
        self.now = now
        self.nextIdentity = nextIdentity
        self.directoryIDs = directoryIDs
    }

    /// Queues outcomes, writing a batch whenever `batchRows` are waiting.
    func add(_ outcomes: [ReadOutcome]) throws {
        pending.append(contentsOf: outcomes)
        if pending.count >= batchRows { try flush() }
    }

    /// Files waiting to be written.
    var pendingCount: Int { pending.count }

    /// Writes everything queued, in one transaction.
    func flush() throws {
        guard !pending.isEmpty else { return }
        var batch = pending
        pending = []
        batch.sort { $0.path < $1.path }
        let start = ContinuousClock.now
        defer { adapt(rows: batch.count, took: ContinuousClock.now - start) }
        try pool.write { db in
            prepared = nil
            defer { prepared = nil }
            firstInserted = nil
            let identityBefore = nextIdentity
            let tracksBefore = added + updated
            for outcome in batch { try write(outcome, db) }
            // The track rows went through SQLite's C API, which GRDB's observers do not see: say so, or the
            // library's content version (and every listing cached against it) would miss a retagged file.
            if added + updated != tracksBefore { try db.notifyChanges(in: Table("track")) }
            if let firstInserted, !searchIndex.rebuildPending { try SearchIndex.add(from: firstInserted, db) }
            if nextIdentity != identityBefore {
                try db.execute(sql: "UPDATE scan_state SET next_identity = ? WHERE id = 1", arguments: [nextIdentity])
            }
        }
    }

    /// Scales the batch size toward `targetTransaction` from a full batch's duration.
    private func adapt(rows: Int, took duration: Duration) {
        guard rows >= batchRows / 2, duration > .zero else { return }
        let scale = Self.targetTransaction / duration
        let wanted = Int(Double(rows) * min(2, max(0.5, scale)))
        batchRows = min(Self.batchRange.upperBound, max(Self.batchRange.lowerBound, wanted))
    }

    private func write(_ outcome: ReadOutcome, _ db: Database) throws {
        let job = outcome.job
        if job.trackID != nil || job.wasRejected {
            try db.cachedStatement(sql: "DELETE FROM scan_issue WHERE path = ? AND size IS NOT NULL")
                .execute(arguments: [outcome.path])
        }
        switch outcome.result {
        case let .track(file, warnings):
            if let trackID = job.trackID {
                try update(trackID, file: file, outcome: outcome, db)
            } else {
                if outcome.rawPath != nil, try Bool.fetchOne(
                    db.cachedStatement(sql: "SELECT 1 FROM track WHERE path = ?"), arguments: [outcome.path]) == true {
                    try record(.nameCollision, reason: "another file's name differs only in bytes that are not "
                        + "UTF-8", outcome: outcome, db)
                    return
                }
                try insert(file, outcome: outcome, db)
            }
            for warning in warnings {
                try record(warning, reason: warning == .invalidName
                    ? "the file name is not valid UTF-8 (shown with U+FFFD; the real bytes are kept)"
                    : "some tag text is not valid UTF-8 (bad bytes replaced by U+FFFD)", outcome: outcome, db)
            }
        case let .rejected(kind, reason):
            if let trackID = job.trackID { removedTrackIDs.append(trackID) }
            try record(kind, reason: reason, outcome: outcome, db)
        }
    }

    private func record(_ kind: ScanIssue.Kind, reason: String, outcome: ReadOutcome, _ db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO scan_issue (path, kind, reason, path_bytes, size, mtime, indexed, scan)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [outcome.path, kind.rawValue, reason, outcome.rawPath.map { Data($0) },
                                     outcome.job.size, outcome.job.modified, kind.isIndexed, scan])
        issuesFound += 1
    }

    private func insert(_ file: ScannedFile, outcome: ReadOutcome, _ db: Database) throws {
        let statement = try statements(db).insert
        Self.bindFile(statement, file: file, job: outcome.job)
        statement.bind(30, outcome.path)
        statement.bind(31, bytes: outcome.rawPath)
        statement.bind(32, try directory(for: outcome.job.path, db))
        statement.bind(33, nextIdentity)
        statement.bind(34, now)
        try statement.run()
        nextIdentity += 1
        if firstInserted == nil { firstInserted = db.lastInsertedRowID }
        added += 1
    }

    private func update(_ trackID: Int64, file: ScannedFile, outcome: ReadOutcome, _ db: Database) throws {
        if let before = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT identity_id, fingerprint FROM track WHERE id = ?
            """), arguments: [trackID]), before[1] != file.fingerprint {
            fingerprintChanges.append(FingerprintChange(
                trackID: trackID, identityID: before[0], oldFingerprint: before[1], fingerprint: file.fingerprint,
                path: outcome.path))
        }
        let statement = try statements(db).update
        Self.bindFile(statement, file: file, job: outcome.job)
        statement.bind(30, trackID)
        if searchIndex.perRow() {
            try SearchIndex.remove(trackID, db)
            try statement.run()
            try SearchIndex.add(trackID, db)
        } else {
            try statement.run()
        }
        updated += 1
    }

    /// The insert and update statements, prepared once per batch (looking a statement up in GRDB's cache hashes
    /// its SQL text, which showed in the profile at one lookup per file).
    private struct Statements {
        let insert: RawStatement
        let update: RawStatement
    }

    private var prepared: Statements?

    private func statements(_ db: Database) throws -> Statements {
        if let prepared { return prepared }
        let insert = try RawStatement(db, """
            INSERT INTO track (size, mtime, format, title, artist, album_artist, album, track_number, disc_number,
                date, genre, composer, bpm, duration, sample_rate, channels, bits_per_sample, rg_track_gain,
                rg_track_peak, rg_album_gain, rg_album_peak, picture_hash, picture_bytes, fingerprint,
                mb_track_id, mb_album_id, mb_artist_id, mb_album_artist_id, mb_release_track_id,
                path, path_bytes, directory_id, identity_id, added_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let update = try RawStatement(db, """
            UPDATE track SET size = ?, mtime = ?, format = ?, title = ?, artist = ?, album_artist = ?, album = ?,
                track_number = ?, disc_number = ?, date = ?, genre = ?, composer = ?, bpm = ?, duration = ?,
                sample_rate = ?, channels = ?, bits_per_sample = ?, rg_track_gain = ?, rg_track_peak = ?,
                rg_album_gain = ?, rg_album_peak = ?, picture_hash = ?, picture_bytes = ?, fingerprint = ?,
                mb_track_id = ?, mb_album_id = ?, mb_artist_id = ?, mb_album_artist_id = ?, mb_release_track_id = ?
            WHERE id = ?
            """)
        let made = Statements(insert: insert, update: update)
        prepared = made
        return made
    }

    /// Binds size … fingerprint and the MusicBrainz ids to parameters 1–29, the column order both statements use.
    private static func bindFile(_ statement: RawStatement, file: ScannedFile, job: ScanJob) {
        let tags = file.tags
        let gain = tags.replayGain
        statement.bind(1, job.size)
        statement.bind(2, job.modified)
        statement.bind(3, tags.codec)
        statement.bind(4, tags.title)
        statement.bind(5, tags.artist)
        statement.bind(6, tags.albumArtist)
        statement.bind(7, tags.album)
        statement.bind(8, tags.trackNumber)
        statement.bind(9, tags.discNumber)
        statement.bind(10, tags.date)
        statement.bind(11, tags.genre)
        statement.bind(12, tags.composer)
        statement.bind(13, tags.bpm)
        statement.bind(14, tags.duration)
        statement.bind(15, tags.sampleRate)
        statement.bind(16, tags.channels)
        statement.bind(17, tags.bitsPerSample)
        statement.bind(18, gain.trackGain)
        statement.bind(19, gain.trackPeak)
        statement.bind(20, gain.albumGain)
        statement.bind(21, gain.albumPeak)
        statement.bind(22, file.pictureHash)
        statement.bind(23, file.pictureHash == nil ? nil : file.pictureBytes)
        statement.bind(24, file.fingerprint)
        statement.bind(25, tags.musicBrainz.track)
        statement.bind(26, tags.musicBrainz.album)
        statement.bind(27, tags.musicBrainz.artist)
        statement.bind(28, tags.musicBrainz.albumArtist)
        statement.bind(29, tags.musicBrainz.releaseTrack)
    }

    /// The row id of the directory holding `path`, creating it (and its parents) when new.
    private func directory(for path: [UInt8], _ db: Database) throws -> Int64 {
        let bytes = PathText.directory(of: path)
        if let last = lastDirectory, last.bytes == bytes { return last.id }
        let id = try directoryID(PathText.display(Array(bytes)), db)
        lastDirectory = (bytes, id)
        return id
    }

    private func directoryID(_ path: String, _ db: Database) throws -> Int64 {
        if let id = directoryIDs[path] { return id }
        var parentID: Int64?
        if !path.isEmpty {
            let parent = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
            parentID = try directoryID(parent, db)
        }
        try db.cachedStatement(sql: "INSERT INTO directory (path, parent_id) VALUES (?, ?)")
            .execute(arguments: [path, parentID])
        let id = db.lastInsertedRowID
        directoryIDs[path] = id
        return id
    }
}
