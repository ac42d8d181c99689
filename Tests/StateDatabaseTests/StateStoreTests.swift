import DatabaseFile
import FermataCore
import Foundation
import GRDB
import Logging
import StateDatabase
import Testing
import TestSupport

/// The queue and player state come back from the database exactly as they were saved.
@Suite struct StateStoreTests {
    func snapshot(_ queue: PlayQueue, current: EntryID?) -> PlayerSnapshot {
        var s = PlayerSnapshot()
        s.transport = .playing
        s.currentEntry = current
        s.positionFrames = 123_456
        s.sampleRate = 44_100
        s.repeatMode = .queue
        s.volume = 70
        s.tempoPercent = 85
        s.transposeCents = -350
        s.beat = TrackBeat(bpm: 92.5, offsetSeconds: 0.125)
        s.metronome = MetronomePlan(beatsPerBar: 3, level: 0.5)
        s.loop = EntryLoop(entry: current ?? 0, region: LoopRegion(start: 1000, end: 9000, repeatCount: 3))
        s.queueVersion = queue.version
        s.nextEntryID = queue.nextID
        return s
    }

    @Test func editsSurviveAReopen() async throws {
        let dir = try TemporaryDirectory()
        var generator = SplitMix64(seed: 7)
        var queue = PlayQueue()
        var saved = PlayerSnapshot()
        do {
            let store = StateStore(database: try FermataDatabase(stateDirectory: dir.path, schema: .stateFile), logger: Logger(label: "t"))
            let ids = queue.insert(uris: (0..<200).map { "a/\($0).flac" }, at: nil, using: &generator)
            await store.save(snapshot(queue, current: ids[5]), queue: queue, writeNumber: 0)
            queue.move(0..<3, to: 150)
            await store.save(snapshot(queue, current: ids[5]), queue: queue, writeNumber: 0)
            queue.remove(ids: [ids[7], ids[9]])
            await store.save(snapshot(queue, current: ids[5]), queue: queue, writeNumber: 0)
            queue.setShuffled(true, first: ids[5], using: &generator)
            await store.save(snapshot(queue, current: ids[5]), queue: queue, writeNumber: 0)
            _ = queue.insert(uris: ["b/x.flac", "b/y.flac"], at: 10, using: &generator)
            saved = snapshot(queue, current: ids[5])
            await store.save(saved, queue: queue, writeNumber: 0)
            await store.checkpoint(entry: ids[5], frame: 777_777, sampleRate: 44_100, writeNumber: 0)
            #expect(await store.failedWrites == 0)
        }
        let store = StateStore(database: try FermataDatabase(stateDirectory: dir.path, schema: .stateFile), logger: Logger(label: "t"))
        let head = try await store.loadHead()
        #expect(head.snapshot?.positionFrames == 777_777)
        #expect(head.snapshot?.repeatMode == .queue)
        #expect(head.snapshot?.tempoPercent == 85 && head.snapshot?.transposeCents == -350)
        #expect(head.snapshot?.beat == TrackBeat(bpm: 92.5, offsetSeconds: 0.125))
        #expect(head.snapshot?.metronome == MetronomePlan(beatsPerBar: 3, level: 0.5))
        #expect(head.snapshot?.loop?.region == LoopRegion(start: 1000, end: 9000, repeatCount: 3))
        #expect(head.entries.first?.id == saved.currentEntry)
        let loaded = try await store.loadQueue()
        #expect(loaded.entries.map(\.id) == queue.entries.map(\.id))
        #expect(loaded.entries.map(\.uri) == queue.entries.map(\.uri))
        #expect(loaded.shuffledOrder == queue.shuffledOrder)
    }

    @Test func aReadOnlyDatabaseIsSurvivedAndRewrittenWhenWritableAgain() async throws {
        let dir = try TemporaryDirectory()
        let database = try FermataDatabase(stateDirectory: dir.path, schema: .stateFile)
        let store = StateStore(database: database, logger: Logger(label: "t"))
        var generator = SplitMix64(seed: 1)
        var queue = PlayQueue()
        let first = queue.insert(uris: ["1.flac", "2.flac"], at: nil, using: &generator)
        await store.save(snapshot(queue, current: first[0]), queue: queue, writeNumber: 0)
        try await database.pool.write { try $0.execute(sql: "CREATE TRIGGER block BEFORE INSERT ON queue_segment BEGIN SELECT RAISE(ABORT, 'disk full'); END") }
        _ = queue.insert(uris: ["3.flac"], at: nil, using: &generator)
        await store.save(snapshot(queue, current: first[0]), queue: queue, writeNumber: 0)
        #expect(await store.failedWrites == 1)
        try await database.pool.write { try $0.execute(sql: "DROP TRIGGER block") }
        await store.checkpoint(entry: first[1], frame: 5, sampleRate: 44_100, writeNumber: 0)
        let loaded = try await store.loadQueue()
        #expect(loaded.entries.map(\.uri) == ["1.flac", "2.flac", "3.flac"], "the missed edit is written on recovery")
        #expect(try await store.loadHead().snapshot?.currentEntry == first[1])
    }
}
