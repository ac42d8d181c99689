@testable import Daemon
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
            try String.fetchAll(db, sql: "SELECT json_extract(value, '$[2]') FROM json_each(?)", arguments: [text])
        }
        #expect(uris == entries.map(\.uri))
        // A queue saved before priorities existed (seven elements) reads with priority 0; the eighth is written only
        // when not 0.
        #expect(try QueueSegmentCodec.decode("[[7,1,\"old.flac\",null,null,null,null]]") == [QueueEntry(id: 7, uri: "old.flac", version: 1)])
        #expect(QueueSegmentCodec.encode([QueueEntry(id: 7, uri: "old.flac", version: 1)]) == "[[7,1,\"old.flac\",null,null,null,null]]")
    }

    @Test(arguments: ["", "[", "[[1,2,\"a\",null,null,null]]", "[[1,2,\"a\",null,null,null,null]", "[[1,2,a,null,null,null,null]]",
                      "[[1.5,2,\"a\",null,null,null,null]]", "[[1,2,\"a\",nan,null,null,null]]", "[[1,2,\"\\q\",null,null,null,null]]",
                      "[[1,2,\"\\ud800\",null,null,null,null]]", "[[1,2,\"a\",null,null,null,null]] x",
                      "[[99999999999999999999,2,\"a\",null,null,null,null]]",
                      "[[1,2,\"a\",null,null,null,null,256]]", "[[1,2,\"a\",null,null,null,null,-1]]",
                      "[[1,2,\"a\",null,null,null,null,1,2]]",
                      // Parts out of bounds or misshapen: reversed ends, 0 passes, a tempo of 200, a name not a string.
                      "[[1,2,\"a\",null,null,null,null,0,[30,10,1,null,null]]]",
                      "[[1,2,\"a\",null,null,null,null,0,[0,10,0,null,null]]]",
                      "[[1,2,\"a\",null,null,null,null,0,[0,10,1,200,null]]]",
                      "[[1,2,\"a\",null,null,null,null,0,[0,10,1,null,7]]]",
                      "[[1,2,\"a\",null,null,null,null,0,[0,10,1,null]]]"])
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
            let store = StateStore(database: try FermataDatabase(stateDirectory: dir.path, schema: .fermata), logger: Logger(label: "t"))
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
        let database = try FermataDatabase(stateDirectory: dir.path, schema: .fermata)
        var queue = PlayQueue()
        var generator = SplitMix64(seed: 5)
        queue.insert(uris: (0..<600).map { "x/\($0).flac" }, at: nil, using: &generator)
        let store = StateStore(database: database, logger: Logger(label: "t"))
        await store.save(PlayerSnapshot(), queue: queue, writeNumber: 0)
        let runs = try await database.pool.read { try Int64.fetchAll($0, sql: "SELECT id FROM queue_segment ORDER BY sort_key") }
        #expect(runs.count == 3)
        try await database.pool.write { try $0.execute(sql: "UPDATE queue_segment SET entries = '[[1,' WHERE id = ?", arguments: [runs[1]]) }
        let loaded = try await StateStore(database: database, logger: Logger(label: "t")).loadQueue()
        #expect(loaded.entries == Array(queue.entries[0..<200] + queue.entries[400...]))
    }

    @Test func aV3DatabaseIsMovedOverWithItsShuffledOrder() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.file(FermataDatabase.fileName)
        do {
            let old = try DatabaseQueue(path: path)
            try DatabaseSchema.fermata.migrations.makeMigrator().migrate(old, upTo: "v3-position-sequence")
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
        let store = StateStore(database: try FermataDatabase(stateDirectory: dir.path, schema: .fermata), logger: Logger(label: "t"))
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
        let database = try FermataDatabase(stateDirectory: dir.path, schema: .fermata)
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
}
