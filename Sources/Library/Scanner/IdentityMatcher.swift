import GRDB

/// Gives files that appeared in this scan the identity of a missing file with the same audio fingerprint, so their
/// custom metadata comes back after a move, a rename, or an absence (an SD card swapped, a NAS offline).
///
/// Rules, per fingerprint: a missing identity goes first to a new file at its old path, then to one with the same file
/// name, then to any other; each identity and each new file is used once, so copies of one recording keep separate
/// identities. A changed file whose audio now matches a missing identity takes it (`mv b.flac a.flac` moves b's
/// metadata onto a) and leaves its old identity missing; otherwise it keeps its identity (a re-encode in place keeps
/// its metadata).
///
/// Not thread-safe: used by the scan thread only, inside `ScanFinisher`.
struct IdentityMatcher {
    let pool: DatabasePool
    /// Tracks with a larger row id were added by this scan.
    let lastTrackBefore: Int64
    let now: Int64

    private struct Missing {
        var id: Int64
        var lastPath: String
    }

    private struct Candidate {
        var trackID: Int64
        var path: String
        /// The identity the track has now: a fresh one (new file) or its old one (changed file).
        var identityID: Int64
        /// For a changed file, the fingerprint its old identity had.
        var oldFingerprint: String?
    }

    /// A `missing_identity` row as `reattach` reads it.
    private struct MissingIdentityRecord: Decodable, FetchableRecord {
        static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .convertFromSnakeCase }

        var id: Int64
        var fingerprint: String
        var lastPath: String
    }

    /// A `track` row added by this scan whose fingerprint is a missing identity's, as `reattach` reads it.
    private struct FreshTrackRecord: Decodable, FetchableRecord {
        static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .convertFromSnakeCase }

        var id: Int64
        var path: String
        var identityId: Int64
        var fingerprint: String
    }

    /// Re-attaches identities; returns how many files got a missing identity back.
    func reattach(changes: [ScanWriter.FingerprintChange]) throws -> Int {
        try pool.write { db in
            var missing: [String: [Missing]] = [:]
            let missingIdentities = try MissingIdentityRecord.fetchCursor(
                db, sql: "SELECT id, fingerprint, last_path FROM missing_identity ORDER BY id")
            while let identity = try missingIdentities.next() {
                missing[identity.fingerprint, default: []].append(
                    Missing(id: identity.id, lastPath: identity.lastPath))
            }
            guard !missing.isEmpty else { return 0 }
            var candidates: [String: [Candidate]] = [:]
            for change in changes where missing[change.fingerprint] != nil {
                candidates[change.fingerprint, default: []].append(Candidate(
                    trackID: change.trackID, path: change.path, identityID: change.identityID,
                    oldFingerprint: change.oldFingerprint))
            }
            let fresh = try FreshTrackRecord.fetchCursor(db, sql: """
                SELECT id, path, identity_id, fingerprint FROM track
                WHERE id > ? AND fingerprint IN (SELECT fingerprint FROM missing_identity) ORDER BY path
                """, arguments: [lastTrackBefore])
            while let track = try fresh.next() {
                candidates[track.fingerprint, default: []].append(Candidate(
                    trackID: track.id, path: track.path, identityID: track.identityId, oldFingerprint: nil))
            }
            var restored = 0
            for (fingerprint, identities) in missing {
                guard let found = candidates[fingerprint] else { continue }
                restored += try pair(identities, found, db)
            }
            return restored
        }
    }

    /// Pairs missing identities with candidates by the three rules in turn, in linear time (a disk of copies of one
    /// recording coming back must not take quadratic time).
    private func pair(_ identities: [Missing], _ candidates: [Candidate], _ db: Database) throws -> Int {
        var taken = [Bool](repeating: false, count: candidates.count)
        var waiting: [Missing] = []
        var count = 0
        let keys: [(String) -> Substring] = [{ Substring($0) }, { PathText.fileName($0) }]
        var remaining = identities
        for key in keys {
            var byKey: [Substring: [Int]] = [:]
            for index in candidates.indices.reversed() where !taken[index] {
                byKey[key(candidates[index].path), default: []].append(index)
            }
            waiting = []
            for identity in remaining {
                if let match = byKey[key(identity.lastPath)]?.popLast() {
                    taken[match] = true
                    try adopt(identity, by: candidates[match], db)
                    count += 1
                } else {
                    waiting.append(identity)
                }
            }
            remaining = waiting
        }
        var free = candidates.indices.filter { !taken[$0] }.makeIterator()
        for identity in remaining {
            guard let match = free.next() else { break }
            try adopt(identity, by: candidates[match], db)
            count += 1
        }
        return count
    }

    private func adopt(_ identity: Missing, by candidate: Candidate, _ db: Database) throws {
        if let oldFingerprint = candidate.oldFingerprint {
            // The changed file's own identity is left missing, with its metadata, at this path.
            try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO missing_identity (id, fingerprint, last_path, missing_since) VALUES (?, ?, ?, ?)
                """).execute(arguments: [candidate.identityID, oldFingerprint, candidate.path, now])
        }
        try db.cachedStatement(sql: "UPDATE track SET identity_id = ? WHERE id = ?")
            .execute(arguments: [identity.id, candidate.trackID])
        try db.cachedStatement(sql: "DELETE FROM missing_identity WHERE id = ?").execute(arguments: [identity.id])
    }
}
