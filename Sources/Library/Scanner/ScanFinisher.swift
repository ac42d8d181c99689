import Foundation
import GRDB

/// The last step of a scan, once its whole tree (the library's, or the part `scope` names) has been seen: removes tracks whose files are gone (their
/// identities stay in `missing_identity`, their custom metadata with them), gives new files the identity of a missing
/// file with the same audio (a move, a rename, a disk that came back), forgets identities missing for 30 days that
/// nobody annotated (stickers here; the state database's practice tables keep theirs with a trigger of their own,
/// `PracticeMigrations.keepPractisedIdentities`), drops directories that vanished or hold nothing, and replaces the
/// walk's own issues.
///
/// Not thread-safe: used by the scan thread only, after the walkers and readers are joined. Writes in transactions of
/// a few hundred rows.
struct ScanFinisher {
    /// Identities missing for longer than this, with no stickers (or practice data, in the state database), are deleted.
    static let forgetAfter: Int64 = 30 * 24 * 3600

    let pool: DatabasePool
    let scan: Int64
    /// The largest track row id at the end of the last finished scan (larger ones are new since: this scan's, and a
    /// cancelled scan's before it).
    let lastTrackBefore: Int64
    let now: Int64
    /// The directory this scan walked (display form; "" for the whole library): directories and walk issues outside
    /// it are not this scan's to remove (the known files outside it were loaded as seen).
    var scope = ""

    /// What the finisher did.
    struct Result {
        var removed = 0
        var restored = 0
    }

    /// `known`: the files known before the scan, with the walk's seen flags; `knownDirectories`: the directory rows
    /// before the scan (path → id); `walk.unlisted`: directories the walk could not list (what is under them stays).
    func finish(
        known: KnownFiles, knownDirectories: [String: Int64], writer: ScanWriter, walk: WalkResult
    ) throws -> Result {
        var result = Result()
        var goneTracks = writer.removedTrackIDs
        var goneIssues: [Int64] = []
        for (index, entry) in known.entries.enumerated() where !known.isSeen(index) {
            if entry.isRejected { goneIssues.append(entry.rowID) } else { goneTracks.append(entry.rowID) }
        }
        let perRow = writer.searchIndex.perRow(goneTracks.count)
        result.removed = try removeTracks(goneTracks, keepingUnder: walk.unlisted, searchPerRow: perRow)
        try removeIssues(goneIssues, keepingUnder: walk.unlisted)
        result.restored = try IdentityMatcher(pool: pool, lastTrackBefore: lastTrackBefore, now: now)
            .reattach(changes: writer.fingerprintChanges)
        try pool.write { db in
            try db.execute(sql: """
                DELETE FROM missing_identity WHERE missing_since < ?
                AND NOT EXISTS (SELECT 1 FROM sticker s WHERE s.identity_id = missing_identity.id)
                """, arguments: [now - Self.forgetAfter])
            try replaceWalkIssues(walk, db)
            if writer.searchIndex.rebuildPending { try SearchIndex.rebuild(db) }
            try removeDirectories(known: knownDirectories, seen: walk.directories, unlisted: walk.unlisted,
                                  pruneEmpty: result.removed > 0, db)
            try db.execute(sql: """
                UPDATE scan_state SET finished_at = ?, matched_through = (SELECT coalesce(max(id), 0) FROM track)
                WHERE id = 1
                """, arguments: [now])
        }
        return result
    }

    /// Deletes tracks (not under `unlisted`), marking their identities missing since now at their last path.
    private func removeTracks(_ ids: [Int64], keepingUnder unlisted: [String], searchPerRow: Bool) throws -> Int {
        var removed = 0
        for chunk in stride(from: 0, to: ids.count, by: 500).map({ ids[$0..<min($0 + 500, ids.count)] }) {
            try pool.write { db in
                for id in chunk {
                    guard let path = try String.fetchOne(db.cachedStatement(sql: "SELECT path FROM track WHERE id = ?"),
                                                         arguments: [id]) else { continue }
                    if unlisted.contains(where: { PathText.isWithin(path, $0) }) { continue }
                    try db.cachedStatement(sql: """
                        INSERT OR REPLACE INTO missing_identity (id, fingerprint, last_path, missing_since)
                        SELECT identity_id, fingerprint, path, ? FROM track WHERE id = ?
                        """).execute(arguments: [now, id])
                    if searchPerRow { try SearchIndex.remove(id, db) }
                    try db.cachedStatement(sql: "DELETE FROM track WHERE id = ?").execute(arguments: [id])
                    removed += 1
                }
            }
        }
        return removed
    }

    private func removeIssues(_ rowIDs: [Int64], keepingUnder unlisted: [String]) throws {
        guard !rowIDs.isEmpty else { return }
        try pool.write { db in
            for rowID in rowIDs {
                if !unlisted.isEmpty, let path = try String.fetchOne(
                    db, sql: "SELECT path FROM scan_issue WHERE rowid = ?", arguments: [rowID]),
                    unlisted.contains(where: { PathText.isWithin(path, $0) }) { continue }
                try db.cachedStatement(sql: "DELETE FROM scan_issue WHERE rowid = ?").execute(arguments: [rowID])
            }
        }
    }

    /// The walk's issues and vanished files are re-found by every complete scan: the old ones go, the new come in.
    private func replaceWalkIssues(_ walk: WalkResult, _ db: Database) throws {
        let stale = try Row.fetchAll(db, sql: """
            SELECT rowid, path FROM scan_issue WHERE (size IS NULL OR kind = 'vanished') AND scan < ?
            """, arguments: [scan])
        for row in stale where PathText.isWithin(row["path"], scope) {
            try db.execute(sql: "DELETE FROM scan_issue WHERE rowid = ?", arguments: [row["rowid"] as Int64])
        }
        for issue in walk.issues {
            let valid = PathText.valid(issue.path)
            try db.execute(sql: """
                INSERT OR REPLACE INTO scan_issue (path, kind, reason, path_bytes, size, mtime, indexed, scan)
                VALUES (?, ?, ?, ?, NULL, NULL, 0, ?)
                """, arguments: [valid ?? PathText.display(issue.path), issue.kind.rawValue, issue.reason,
                                 valid == nil ? Data(issue.path) : nil, scan])
        }
    }

    /// Deletes directories the walk did not enter (unless under an unlisted one), then, when tracks went away,
    /// directories left with no track and no subdirectory (as MPD does).
    private func removeDirectories(
        known: [String: Int64], seen: [String], unlisted: [String], pruneEmpty: Bool, _ db: Database
    ) throws {
        var gone = known
        for path in seen { gone.removeValue(forKey: path) }
        for (path, id) in gone
        where PathText.isWithin(path, scope) && !unlisted.contains(where: { PathText.isWithin(path, $0) }) {
            try db.execute(sql: "DELETE FROM directory WHERE id = ?", arguments: [id])
        }
        guard pruneEmpty else { return }
        repeat {
            try db.execute(sql: """
                DELETE FROM directory WHERE path != ''
                AND NOT EXISTS (SELECT 1 FROM track t WHERE t.directory_id = directory.id)
                AND NOT EXISTS (SELECT 1 FROM directory c WHERE c.parent_id = directory.id)
                """)
        } while db.changesCount > 0
    }
}
