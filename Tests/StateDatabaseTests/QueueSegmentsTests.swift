import DatabaseFile
import FermataCore
import Foundation
import GRDB
import Library
import Logging
@testable import StateDatabase
import Testing
import TestSupport

/// The queue saved as runs of entries (`queue_segment`): every edit comes back exactly after a reopen, an edit writes
/// only the runs it touched, damaged text loses one run rather than the queue, a v3 database (one row per entry) is
/// moved over, and the `queue_entry` view still shows one row per entry for `sqlite3` users.
@Suite struct QueueSegmentsTests {
    static func entry(_ id: EntryID, _ uri: String = "a.flac", version: Int = 1) -> QueueEntry {
        QueueEntry(id: id, uri: uri, replayGain: ReplayGainInfo(trackGain: -6.25, trackPeak: 0.987654321), version: version)
    }

    @Test func theTextRoundTripsAwkwardNamesAndEveryGain() throws {
        let entries = [
            QueueEntry(id: 1, uri: #"quote " back \ slash/tab"# + "\t" + #"and "\"" end"#, version: 3),
            QueueEntry(id: Int64.max, uri: "ctl \u{1}\u{1f}\n\r nul-free, ünïcödé, 🎻, 汉字", version: Int(Int32.max)),
            QueueEntry(id: 3, uri: "", replayGain: ReplayGainInfo(trackGain: -1e-300, trackPeak: 1.7976931348623157e308,
                                                                    albumGain: 0.1, albumPeak: Double.leastNonzeroMagnitude), version: 0),
            QueueEntry(id: 4, uri: "/abs/path.flac", replayGain: ReplayGainInfo(albumGain: -0.0)),
            QueueEntry(id: 5, uri: "prio.flac", version: 2, priority: 255),
            QueueEntry(id: 6, uri: "prio1.flac", version: 2, priority: 1),
            // Parts of files: a queued section (name with a quote), an open range, a range with a priority.
            QueueEntry(id: 7, uri: "s.flac", version: 4, span: PlaySpan(startMilliseconds: 12_500, endMilliseconds: 30_000,
                                                                       passes: 4, tempoPercent: 80, section: #"the "solo""#)),
            QueueEntry(id: 8, uri: "r.flac", span: PlaySpan(startMilliseconds: 61_005)),
            QueueEntry(id: 9, uri: "p.flac", priority: 9, span: PlaySpan(startMilliseconds: 0, endMilliseconds: 1)),
        ]
        let text = QueueSegmentCodec.encode(entries)
        #expect(try QueueSegmentCodec.decode(text) == entries)
        #expect(try QueueSegmentCodec.decode("[]").isEmpty)
        #expect(try QueueSegmentCodec.decode(ids: QueueSegmentCodec.encode(ids: [5, 1, Int64.min])) == [5, 1, Int64.min])
        // What SQLite's own JSON reads as the same entries (the `queue_entry` view depends on it).
        let queue = try DatabaseQueue()
        let uris = try queue.read { db in
            try String.fetchAll(db, sql: "SELECT json_extract(value, '$.uri') FROM json_each(?)", arguments: [text])
        }
        #expect(uris == entries.map(\.uri))
        // Members by name; what has no value is left out: no gain, priority 0, no span.
        #expect(QueueSegmentCodec.encode([QueueEntry(id: 7, uri: "old.flac", version: 1)])
                == #"[{"id":7,"version":1,"uri":"old.flac"}]"#)
        #expect(try QueueSegmentCodec.decode(#"[ { "uri" : "old.flac", "version":1, "id":7 } ]"#)
                == [QueueEntry(id: 7, uri: "old.flac", version: 1)], "any order, any spacing")
        #expect(QueueSegmentCodec.encode([QueueEntry(id: 9, uri: "p.flac", priority: 9, span: PlaySpan(
            startMilliseconds: 0, endMilliseconds: 1, passes: 2, tempoPercent: 80, section: "A"))])
                == #"[{"id":9,"version":0,"uri":"p.flac","priority":9,"#
                + #""span":{"start_ms":0,"end_ms":1,"passes":2,"tempo":80,"section":"A"}}]"#)
    }

    @Test(arguments: ["", "[", "[{\"id\":1,\"version\":2}]", "[{\"id\":1,\"version\":2,\"uri\":\"a\"}",
                      "[{\"id\":1,\"version\":2,\"uri\":a}]", "[{\"id\":1.5,\"version\":2,\"uri\":\"a\"}]",
                      "[{\"id\":1,\"version\":2,\"uri\":\"a\",\"track_gain\":nan}]",
                      "[{\"id\":1,\"version\":2,\"uri\":\"a\",\"track_gain\":null}]",
                      "[{\"id\":1,\"version\":2,\"uri\":\"\\q\"}]", "[{\"id\":1,\"version\":2,\"uri\":\"\\ud800\"}]",
                      "[{\"id\":1,\"version\":2,\"uri\":\"a\"}] x",
                      "[{\"id\":99999999999999999999,\"version\":2,\"uri\":\"a\"}]",
                      "[{\"id\":1,\"version\":2,\"uri\":\"a\",\"priority\":256}]",
                      "[{\"id\":1,\"version\":2,\"uri\":\"a\",\"priority\":-1}]",
                      // A member twice, a member nobody writes, the old positional form.
                      "[{\"id\":1,\"id\":2,\"version\":2,\"uri\":\"a\"}]",
                      "[{\"id\":1,\"version\":2,\"uri\":\"a\",\"colour\":1}]",
                      "[[1,2,\"a\",null,null,null,null]]",
                      // Parts out of bounds or misshapen: reversed ends, 0 passes, a tempo of 200, a name not a string,
                      // no start.
                      "[{\"id\":1,\"version\":2,\"uri\":\"a\",\"span\":{\"start_ms\":30,\"end_ms\":10,\"passes\":1}}]",
                      "[{\"id\":1,\"version\":2,\"uri\":\"a\",\"span\":{\"start_ms\":0,\"end_ms\":10,\"passes\":0}}]",
                      "[{\"id\":1,\"version\":2,\"uri\":\"a\",\"span\":{\"start_ms\":0,\"passes\":1,\"tempo\":200}}]",
                      "[{\"id\":1,\"version\":2,\"uri\":\"a\",\"span\":{\"start_ms\":0,\"passes\":1,\"section\":7}}]",
                      "[{\"id\":1,\"version\":2,\"uri\":\"a\",\"span\":{\"passes\":1}}]"])
    func damagedTextIsRefused(_ text: String) {
        #expect(throws: QueueSegmentCodec.Malformed.self) { try QueueSegmentCodec.decode(text) }
    }

    @Test func anAppendToALongQueueWritesOneRun() {
        var segments = QueueSegments()
        var entries = (1...10_000).map { Self.entry(EntryID($0)) }
        let first = segments.update(to: entries)
        #expect(first.inserted.allSatisfy { $0.segment.entries.count <= QueueSegments.maximumSize })
        #expect(first.inserted.count == 40)
        entries.append(Self.entry(10_001, version: 2))
        let append = segments.update(to: entries)
        #expect(append.inserted.count == 1 && append.removed.count <= 1 && append.rekeyed.isEmpty)
        // A move in the middle rewrites the runs around it, not the queue.
        let moved = entries.remove(at: 5_000)
        entries.insert(QueueEntry(id: moved.id, uri: moved.uri, replayGain: moved.replayGain, version: 3), at: 5_100)
        let move = segments.update(to: entries)
        #expect(move.inserted.reduce(0) { $0 + $1.segment.entries.count } <= 2 * QueueSegments.maximumSize)
        #expect(segments.update(to: entries).inserted.isEmpty, "an unchanged queue writes nothing")
    }

    @Test func singleAddsDoNotFragmentTheRuns() {
        var segments = QueueSegments()
        var entries: [QueueEntry] = []
        var generator = SplitMix64(seed: 11)
        for id in 1...3_000 {
            // Appends, and now and then an insert at the front (runs at both ends grow one entry at a time).
            let entry = Self.entry(EntryID(id), version: id)
            if Int.random(in: 0..<10, using: &generator) == 0 { entries.insert(entry, at: 0) } else { entries.append(entry) }
            _ = segments.update(to: entries)
        }
        #expect(segments.order.flatMap(\.digests) == entries.map(\.hashValue))
        var offset = 0
        for run in segments.order {
            #expect(run.firstID == entries[offset].id)
            offset += run.count
        }
        #expect(segments.order.count <= 2 * entries.count / (QueueSegments.maximumSize / 2) + 2,
                "\(segments.order.count) runs for \(entries.count) entries")
    }

    /// Random edits of every kind, each saved; after each round the database, reopened, gives back the same queue.
    @Test func randomEditsComeBackExactly() async throws {
        let dir = try TemporaryDirectory()
        var generator = SplitMix64(seed: 2026)
        var queue = PlayQueue()
        var snapshot = PlayerSnapshot()
        for round in 0..<6 {
            let store = StateStore(database: try FermataDatabase(stateDirectory: dir.path, schema: .stateFile), logger: Logger(label: "t"))
            if round > 0 {
                _ = try await store.loadHead()
                let loaded = try await store.loadQueue()
                #expect(loaded.entries == queue.entries, "round \(round)")
                #expect(loaded.shuffledOrder == queue.shuffledOrder, "round \(round)")
            }
            for _ in 0..<60 {
                let count = queue.entries.count
                switch Int.random(in: 0..<20, using: &generator) {
                case 0..<8:
                    let uris = (0..<Int.random(in: 1...300, using: &generator)).map { "d\($0 % 7)/t \(round) \($0).flac" }
                    queue.insert(uris: uris, at: Int.random(in: 0...count, using: &generator), using: &generator)
                case 8..<12 where count > 0:
                    let ids = Set((0..<Int.random(in: 1...min(count, 40), using: &generator)).map { _ in
                        queue.entries[Int.random(in: 0..<count, using: &generator)].id })
                    queue.remove(ids: ids)
                case 12..<16 where count > 1:
                    let start = Int.random(in: 0..<count, using: &generator)
                    let length = Int.random(in: 1...min(count - start, 50), using: &generator)
                    queue.move(start..<(start + length), to: Int.random(in: 0...(count - length), using: &generator))
                case 16:
                    queue.setShuffled(queue.shuffledOrder == nil, first: nil, using: &generator)
                case 17 where count > 1:
                    let start = Int.random(in: 0..<count, using: &generator)
                    queue.shuffle(start..<Int.random(in: (start + 1)...count, using: &generator), using: &generator)
                case 18 where Int.random(in: 0..<4, using: &generator) == 0:
                    queue.clear()
                default:
                    continue
                }
                snapshot.queueVersion = queue.version
                snapshot.nextEntryID = queue.nextID
                snapshot.currentEntry = queue.entries.randomElement(using: &generator)?.id
                await store.save(snapshot, queue: queue, writeNumber: 0)
            }
            #expect(await store.failedWrites == 0)
            let head = try await store.loadHead()
            if let current = snapshot.currentEntry, let index = queue.entries.firstIndex(where: { $0.id == current }) {
                #expect(head.entries == Array(queue.entries[index..<min(index + 2, queue.entries.count)]))
            }
        }
    }

    @Test func aDamagedRunIsLeftOutAndTheRestLoads() async throws {
        let dir = try TemporaryDirectory()
        let database = try FermataDatabase(stateDirectory: dir.path, schema: .stateFile)
        var queue = PlayQueue()
        var generator = SplitMix64(seed: 5)
        queue.insert(uris: (0..<600).map { "x/\($0).flac" }, at: nil, using: &generator)
        let store = StateStore(database: database, logger: Logger(label: "t"))
        await store.save(PlayerSnapshot(), queue: queue, writeNumber: 0)
        let runs = try await database.pool.read { try Int64.fetchAll($0, sql: "SELECT id FROM queue_segment ORDER BY sort_key") }
        #expect(runs.count == 3)
        try await database.pool.write { try $0.execute(sql: #"UPDATE queue_segment SET entries = '[{"id":1,' WHERE id = ?"#, arguments: [runs[1]]) }
        let loaded = try await StateStore(database: database, logger: Logger(label: "t")).loadQueue()
        #expect(loaded.entries == Array(queue.entries[0..<200] + queue.entries[400...]))
    }

    @Test func aV3DatabaseIsMovedOverWithItsShuffledOrder() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.file(FermataDatabase.fileName)
        do {
            let old = try DatabaseQueue(path: path)
            try DatabaseSchema.stateFile.migrations.makeMigrator().migrate(old, upTo: "v3-position-sequence")
            try await old.write { db in
                for index in 0..<700 {
                    try db.execute(sql: """
                        INSERT INTO queue_entry (id, sort_key, shuffle_key, uri, version, rg_track_gain) VALUES (?, ?, ?, ?, ?, ?)
                        """, arguments: [index + 10, (700 - index) * 1000, index * 3 % 700, "old/\(index).flac", 4,
                                         index % 2 == 0 ? -3.5 : nil])
                }
                try db.execute(sql: "INSERT INTO player_state (id, shuffled, current_entry, transport) VALUES (1, 1, 15, 'paused')")
            }
        }
        let store = StateStore(database: try FermataDatabase(stateDirectory: dir.path, schema: .stateFile), logger: Logger(label: "t"))
        let head = try await store.loadHead()
        #expect(head.entries.map(\.id) == [15, 14])
        let loaded = try await store.loadQueue()
        let expected: [QueueEntry] = (0..<700).reversed().map { (index: Int) -> QueueEntry in
            let gain: Double? = index % 2 == 0 ? -3.5 : nil
            return QueueEntry(id: EntryID(index + 10), uri: "old/\(index).flac", replayGain: ReplayGainInfo(trackGain: gain),
                              version: 4)
        }
        #expect(loaded.entries == expected)
        let shuffled: [Int] = (0..<700).sorted { (a: Int, b: Int) in a * 3 % 700 < b * 3 % 700 }
        #expect(loaded.shuffledOrder == shuffled.map { EntryID($0 + 10) })
        // The view reads like the old table.
        let database = try FermataDatabase(stateDirectory: dir.path, schema: .stateFile)
        // The closure's types are spelled out: Swift 6.2 otherwise picks GRDB's async `read` here.
        let rows: [Row] = try database.pool.read { (db: Database) throws -> [Row] in
            try Row.fetchAll(db, sql: "SELECT id, uri, version, rg_track_gain, shuffle_key FROM queue_entry ORDER BY sort_key")
        }
        #expect(rows.map { (row: Row) -> Int64 in row["id"] } == expected.map { $0.id })
        #expect(rows.map { (row: Row) -> String in row["uri"] } == expected.map { $0.uri })
        #expect(rows.map { (row: Row) -> Double? in row["rg_track_gain"] } == expected.map { $0.replayGain.trackGain })
        // Keys 0…699 are a permutation (3 and 700 are coprime), so each entry's place in the shuffled order is its key.
        #expect(rows.map { (row: Row) -> Int in row["shuffle_key"] } == expected.map { Int($0.id - 10) * 3 % 700 })
    }

    /// v11 turns the positional arrays of every run into objects with named members (`QueueEntriesKeyedMigration`):
    /// priorities, parts of files and awkward names come through as the codec reads them, and the view shows them.
    @Test func positionalRunsBecomeKeyedEntries() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.file(FermataDatabase.fileName)
        let positional = #"[[1,3,"a \"q\" \\ b\u0001",-6.25,0.987654321,null,null],"#
            + #"[2,1,"p.flac",null,null,-1.5,1,255],"#
            + #"[3,0,"s.flac",null,null,null,null,0,[12500,30000,4,80,"the \"solo\""]],"#
            + #"[4,0,"r.flac",null,null,null,null,9,[61005,null,1,null,null]]]"#
        do {
            let old = try DatabaseQueue(path: path)
            try DatabaseSchema.stateFile.migrations.makeMigrator().migrate(old, upTo: "v8-player-key-and-beat")
            try await old.write { db in
                try db.execute(sql: "INSERT INTO queue_segment (id, sort_key, entries) VALUES (1, 65536, ?)",
                               arguments: [positional])
                try db.execute(sql: "INSERT INTO queue_segment (id, sort_key, entries) VALUES (2, 131072, '[]')")
            }
        }
        let database = try FermataDatabase(stateDirectory: dir.path, schema: .stateFile)
        #expect(database.appliedMigrations.first == "v11-queue-entries-keyed")
        let loaded = try await StateStore(database: database, logger: Logger(label: "t")).loadQueue()
        #expect(loaded.entries == [
            QueueEntry(id: 1, uri: "a \"q\" \\ b\u{1}", replayGain: ReplayGainInfo(trackGain: -6.25, trackPeak: 0.987654321),
                       version: 3),
            QueueEntry(id: 2, uri: "p.flac", replayGain: ReplayGainInfo(albumGain: -1.5, albumPeak: 1), version: 1,
                       priority: 255),
            QueueEntry(id: 3, uri: "s.flac", version: 0, span: PlaySpan(startMilliseconds: 12_500, endMilliseconds: 30_000,
                                                                       passes: 4, tempoPercent: 80, section: "the \"solo\"")),
            QueueEntry(id: 4, uri: "r.flac", version: 0, priority: 9, span: PlaySpan(startMilliseconds: 61_005)),
        ])
        let text = try await database.pool.read { try String.fetchOne($0, sql: "SELECT entries FROM queue_segment WHERE id = 2") }
        #expect(text == "[]")
        let rows: [Row] = try database.pool.read { (db: Database) throws -> [Row] in
            try Row.fetchAll(db, sql: "SELECT id, priority, json_extract(span, '$.passes') AS passes FROM queue_entry ORDER BY sort_key")
        }
        #expect(rows.map { (row: Row) -> Int in row["priority"] } == [0, 255, 0, 9])
        #expect(rows.map { (row: Row) -> Int? in row["passes"] } == [nil, nil, 4, 1])
    }
}
