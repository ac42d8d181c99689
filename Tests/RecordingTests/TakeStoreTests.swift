import DatabaseFile
import Foundation
import Library
import Practice
@testable import Recording
import StateDatabase
import TestSupport
import Testing
import Synchronization

/// The takes index with the takes folder: rows only for committed files, newest first, deletion, the space budget
/// (oldest first), and the tidy-up at start (leftovers and files no row names).
@Suite struct TakeStoreTests {
    static func store() throws -> (TemporaryDirectory, TakeStore) {
        let directory = try TemporaryDirectory(prefix: "fermata-takestore")
        var schema = DatabaseSchema.library
        schema.addStateTables()
        schema.addPracticeTables()
        schema.addRecordingTables()
        let database = try FermataDatabase(stateDirectory: directory.path, schema: schema)
        let folder = TakeFolder(stateDirectory: directory.path)
        try folder.create()
        return (directory, TakeStore(database: database, folder: folder))
    }

    static func take(_ id: Int64, bytes: Int64, at seconds: TimeInterval) -> TakeRecord {
        TakeRecord(id: id, path: "a.flac", loopStartMilliseconds: 1_000, loopEndMilliseconds: 3_000, pass: Int(id),
                   tempoPercent: 80, sampleRate: 44_100, channels: 2, frames: 88_200, bytes: bytes, latencyFrames: 512,
                   recordedAt: Date(timeIntervalSince1970: seconds))
    }

    /// A relative state folder (`fermatad --state state`) still gives takes an absolute path: a take is queued by its
    /// path, and a relative one was looked for in the music folder (`playtake` found nothing).
    @Test func takesHaveAnAbsolutePathWhateverTheStateFolder() {
        let folder = TakeFolder(stateDirectory: "state")
        #expect(folder.path == FileManager.default.currentDirectoryPath + "/state/takes")
        #expect(TakeFolder(stateDirectory: "/var/lib/fermata").path == "/var/lib/fermata/takes")
    }

    @Test func theBudgetDeletesTheOldestTakesFirst() async throws {
        let (directory, store) = try Self.store()
        defer { withExtendedLifetime(directory) {} }
        for id in Int64(1)...4 {
            _ = FileManager.default.createFile(atPath: store.folder.takePath(id), contents: Data(count: 100))
            try await store.add(Self.take(id, bytes: 100, at: 1_000 + Double(id)))
        }
        #expect(try await store.nextID() == 5)
        #expect(try await store.takes().map(\.id) == [4, 3, 2, 1])
        #expect(try await store.keepWithin(budgetBytes: 250) == [1, 2])
        #expect(store.folder.takeIDs() == [3, 4])
        #expect(try await store.delete(3))
        #expect(try await !store.delete(3))
        #expect(store.folder.takeIDs() == [4])
    }

    @Test func tidyingRemovesLeftoversAndFilesWithoutARow() async throws {
        let (directory, store) = try Self.store()
        defer { withExtendedLifetime(directory) {} }
        _ = FileManager.default.createFile(atPath: store.folder.takePath(1), contents: Data(count: 10))
        try await store.add(Self.take(1, bytes: 10, at: 1))
        _ = FileManager.default.createFile(atPath: store.folder.takePath(2), contents: Data(count: 10))
        _ = FileManager.default.createFile(atPath: store.folder.partialPath(3), contents: Data(count: 10))
        #expect(try await store.nextID() == 3, "above the file without a row too")
        try await store.tidy()
        #expect(store.folder.takeIDs() == [1])
        #expect(!FileManager.default.fileExists(atPath: store.folder.partialPath(3)))
    }

    /// A take listed is a take kept through a power cut: its row is committed with `synchronous=FULL` (the WAL synced
    /// before `add` returns), not under the database's NORMAL, which leaves it to the next checkpoint. The kernel lab's
    /// cuts (`aloop-record.sh cut`) lost every take listed seconds before a cut that way, and the start then deleted
    /// their whole files as nobody's. Seen here through the writer connection's statements.
    @Test func aTakeIsIndexedAndDeletedDurably() async throws {
        let (directory, store) = try Self.store()
        defer { withExtendedLifetime(directory) {} }
        let statements = Mutex<[String]>([])
        try await store.database.pool.writeWithoutTransaction { db in
            db.trace { event in
                if case let .statement(statement) = event { statements.withLock { $0.append(statement.sql) } }
            }
        }
        _ = FileManager.default.createFile(atPath: store.folder.takePath(1), contents: Data(count: 100))
        try await store.add(Self.take(1, bytes: 100, at: 1_000))
        #expect(try await store.delete(1))
        let seen = statements.withLock { $0 }
        func durable(_ marker: String) -> Bool {
            guard let at = seen.firstIndex(where: { $0.hasPrefix(marker) }) else { return false }
            let full = seen[..<at].lastIndex { $0.contains("synchronous = FULL") }
            let normal = seen[..<at].lastIndex { $0.contains("synchronous = NORMAL") }
            return full != nil && (normal == nil || normal! < full!)
        }
        #expect(durable("INSERT INTO take"), "\(seen)")
        #expect(durable("DELETE FROM take"), "\(seen)")
    }
}
