@testable import Daemon
import DatabaseFile
import Engine
import FermataCore
import Foundation
import GRDB
import Library
import Logging
import Player
import StateDatabase
import Synchronization
import Testing
import TestSupport

/// A command list's queue edits commit once, when the list ends (10,000 `add`s in one list used to cost 10,000
/// fsyncs: 27.6 s), and another client's edit is never held back by it.
@Suite struct CommandListCommitTests {
    /// Counts the commits of the state database's writer connection.
    final class CommitCounter: TransactionObserver, Sendable {
        let commits = Mutex(0)
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: Database) { commits.withLock { $0 += 1 } }
        func databaseDidRollback(_ db: Database) {}
    }

    static func rows(_ database: FermataDatabase) throws -> Int {
        try database.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM queue_entry") ?? 0 }
    }

    @Test func editsInsideAListCommitOnceWhenItEnds() async throws {
        let dir = try TemporaryDirectory()
        let database = try FermataDatabase(stateDirectory: dir.path, schema: .fermata)
        let store = StateStore(database: database, logger: Logger(label: "t"))
        let counter = CommitCounter()
        try await database.pool.write { db in db.add(transactionObserver: counter, extent: .databaseLifetime) }
        var queue = PlayQueue()
        var generator = SplitMix64(seed: 3)
        let before = counter.commits.withLock { $0 }
        await DeferredWrites.$active.withValue(true) {
            for index in 0..<200 {
                _ = queue.insert(uris: ["a/\(index).flac"], at: nil, using: &generator)
                await store.save(PlayerSnapshot(), queue: queue, writeNumber: 0)
            }
        }
        #expect(counter.commits.withLock { $0 } == before, "nothing committed while the list runs")
        #expect(try Self.rows(database) == 0)
        await store.flushDeferred()
        #expect(counter.commits.withLock { $0 } == before + 1, "one commit for the whole list")
        #expect(try Self.rows(database) == 200)
        #expect(await store.failedWrites == 0)
    }

    @Test func anotherClientsEditIsNotHeldBack() async throws {
        let dir = try TemporaryDirectory()
        let database = try FermataDatabase(stateDirectory: dir.path, schema: .fermata)
        let store = StateStore(database: database, logger: Logger(label: "t"))
        var queue = PlayQueue()
        var generator = SplitMix64(seed: 4)
        _ = queue.insert(uris: ["list/1.flac"], at: nil, using: &generator)
        await DeferredWrites.$active.withValue(true) {
            await store.save(PlayerSnapshot(), queue: queue, writeNumber: 0)
        }
        // Another client's edit (not in a list) commits at once, taking the held one with it, in order.
        _ = queue.insert(uris: ["other/2.flac"], at: nil, using: &generator)
        await store.save(PlayerSnapshot(), queue: queue, writeNumber: 0)
        #expect(try Self.rows(database) == 2)
        await store.flushDeferred()
        let head = try await StateStore(database: database, logger: Logger(label: "t")).loadQueue()
        #expect(head.entries.map(\.uri) == ["list/1.flac", "other/2.flac"])
    }
}
