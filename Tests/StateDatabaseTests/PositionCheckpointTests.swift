import DatabaseFile
import FermataCore
import Foundation
import GRDB
import Logging
@testable import StateDatabase
import Testing
import TestSupport

/// Position checkpoints go to the one-sector file beside the state database, not through SQLite, and whichever of the
/// two holds the newer save is what a restart comes back to.
@Suite struct PositionCheckpointTests {
    let dir: TemporaryDirectory
    init() throws { dir = try TemporaryDirectory() }

    func openStore() throws -> StateStore {
        StateStore(database: try FermataDatabase(stateDirectory: dir.path, schema: .stateFile), logger: Logger(label: "t"))
    }

    /// A store holding a two-entry queue, playing the first entry at frame 100.
    func storeWithQueue() async throws -> (StateStore, [EntryID]) {
        let store = try openStore()
        var generator = SplitMix64(seed: 3)
        var queue = PlayQueue()
        let ids = queue.insert(uris: ["a.flac", "b.flac"], at: nil, using: &generator)
        var snapshot = PlayerSnapshot()
        snapshot.transport = .playing
        snapshot.currentEntry = ids[0]
        snapshot.positionFrames = 100
        snapshot.sampleRate = 44_100
        snapshot.queueVersion = queue.version
        snapshot.nextEntryID = queue.nextID
        await store.save(snapshot, queue: queue, writeNumber: 0)
        return (store, ids)
    }

    func databaseBytes() -> Data {
        let names = ["library.sqlite", "library.sqlite-wal"]
        return names.reduce(into: Data()) { $0 += FileManager.default.contents(atPath: dir.file($1)) ?? Data() }
    }

    @Test func checkpointsLeaveTheDatabaseUntouchedAndComeBackOnRestart() async throws {
        let (store, ids) = try await storeWithQueue()
        let before = databaseBytes()
        for second in 1...5 { await store.checkpoint(entry: ids[1], frame: Int64(second) * 44_100, sampleRate: 44_100, writeNumber: 0) }
        #expect(databaseBytes() == before, "a checkpoint wrote to the database or its WAL")
        #expect(await store.failedWrites == 0)
        let head = try await openStore().loadHead()
        #expect(head.snapshot?.currentEntry == ids[1])
        #expect(head.snapshot?.positionFrames == Int64(5 * 44_100))
        #expect(head.snapshot?.transport == .playing)
        #expect(head.entries.first?.id == ids[1], "the checkpointed entry is loaded first")
    }

    /// A checkpoint and a stop travel to the store from different tasks in no set order. The durability property
    /// test found a checkpoint read while playing arrive after the stop that followed it and, newer by arrival, bring
    /// the stopped player back on the entry it had left (a `next` past the end). The player numbers its writes; a
    /// checkpoint read before the newest snapshot the store has is dropped.
    @Test func aCheckpointReadBeforeAStopButArrivingAfterItIsDropped() async throws {
        let (store, ids) = try await storeWithQueue()
        var stopped = PlayerSnapshot()
        stopped.transport = .stopped
        stopped.currentEntry = nil
        stopped.queueVersion = 2
        stopped.nextEntryID = 3
        await store.save(stopped, queue: nil, writeNumber: 5)
        await store.checkpoint(entry: ids[0], frame: 90_000, sampleRate: 44_100, writeNumber: 4)  // read before it
        var head = try await openStore().loadHead()
        #expect(head.snapshot?.currentEntry == nil && head.snapshot?.transport == .stopped, "\(String(describing: head.snapshot))")
        // One read after it (same count) is kept.
        await store.checkpoint(entry: ids[1], frame: 44_100, sampleRate: 44_100, writeNumber: 5)
        head = try await openStore().loadHead()
        #expect(head.snapshot?.currentEntry == ids[1] && head.snapshot?.positionFrames == 44_100)
    }

    @Test func aStateChangeAfterACheckpointWins() async throws {
        let (store, ids) = try await storeWithQueue()
        await store.checkpoint(entry: ids[0], frame: 90_000, sampleRate: 44_100, writeNumber: 0)
        var paused = PlayerSnapshot()
        paused.transport = .paused
        paused.currentEntry = ids[1]
        paused.positionFrames = 7
        paused.sampleRate = 48_000
        paused.queueVersion = 2
        paused.nextEntryID = 3
        await store.save(paused, queue: nil, writeNumber: 0)
        let reopened = try openStore()
        let head = try await reopened.loadHead()
        #expect(head.snapshot?.currentEntry == ids[1] && head.snapshot?.positionFrames == 7)
        #expect(head.snapshot?.sampleRate == 48_000 && head.snapshot?.transport == .paused)
        // And a checkpoint made after that restart wins over the database again.
        await reopened.checkpoint(entry: ids[1], frame: 9_600, sampleRate: 48_000, writeNumber: 0)
        #expect(try await openStore().loadHead().snapshot?.positionFrames == 9_600)
    }

    @Test func aTornCheckpointFallsBackToThePreviousOneThenToTheDatabase() async throws {
        let (store, ids) = try await storeWithQueue()
        await store.checkpoint(entry: ids[1], frame: 44_100, sampleRate: 44_100, writeNumber: 0)
        await store.checkpoint(entry: ids[1], frame: 88_200, sampleRate: 44_100, writeNumber: 0)
        let path = dir.file("library.sqlite-position")
        var bytes = try #require(FileManager.default.contents(atPath: path))
        #expect(bytes.count == PositionFile.fileSize, "preallocated: later writes overwrite in place")
        #expect(PositionFile.read(path: path)?.frame == 88_200)
        // Where each record is: slots sit 512 bytes apart (a block apart where direct writes must be whole blocks).
        func slot(holding frame: Int64) -> Int? {
            [0, 512, PositionFile.blockSize].first { offset in
                bytes[offset..<offset + PositionFile.recordSize].withUnsafeBytes { PositionFile.decode($0)?.frame } == frame
            }
        }
        let newest = try #require(slot(holding: 88_200))
        let previous = try #require(slot(holding: 44_100))
        #expect(newest != previous, "saves alternate between two slots")
        bytes[newest + 26] ^= 0x40 // a bit of the frame number: a write torn by a power cut
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(PositionFile.read(path: path)?.frame == 44_100, "the checkpoint before the torn one")
        #expect(try await openStore().loadHead().snapshot?.positionFrames == 44_100)
        bytes[previous + 8] ^= 0x01 // its sequence number: now no whole record is left
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(PositionFile.read(path: path) == nil)
        let head = try await openStore().loadHead()
        #expect(head.snapshot?.currentEntry == ids[0] && head.snapshot?.positionFrames == 100,
                "falls back to the position the database holds")
    }

    @Test func aRecordLeftBySetAsideDatabaseIsNotApplied() async throws {
        let (store, ids) = try await storeWithQueue()
        for frame in 1...20 { await store.checkpoint(entry: ids[1], frame: Int64(frame), sampleRate: 44_100, writeNumber: 0) }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: dir.file("library.sqlite" + suffix)) }
        let fresh = try openStore()
        #expect(try await fresh.loadHead().snapshot == nil, "a new database starts empty")
        var generator = SplitMix64(seed: 9)
        var queue = PlayQueue()
        let newIDs = queue.insert(uris: ["c.flac"], at: nil, using: &generator)
        var snapshot = PlayerSnapshot()
        snapshot.currentEntry = newIDs[0]
        snapshot.positionFrames = 5
        snapshot.sampleRate = 44_100
        await fresh.save(snapshot, queue: queue, writeNumber: 0)
        let head = try await openStore().loadHead()
        #expect(head.snapshot?.positionFrames == 5, "the old record (sequence 21) does not outrank the new database")
    }

    @Test func recordsRoundTripAndRejectStrayBlocks() throws {
        let position = SavedPosition(sequence: 1 << 40, entry: -3, frame: Int64.max - 1, sampleRate: 192_000)
        var bytes = [UInt8](repeating: 0, count: PositionFile.recordSize)
        bytes.withUnsafeMutableBytes { PositionFile.encode(position, into: $0) }
        #expect(bytes.withUnsafeBytes { PositionFile.decode($0) } == position)
        let zeros = [UInt8](repeating: 0, count: PositionFile.recordSize)
        #expect(zeros.withUnsafeBytes { PositionFile.decode($0) } == nil)
        #expect(Array(bytes.prefix(40)).withUnsafeBytes { PositionFile.decode($0) } == nil, "a short read")
    }
}
