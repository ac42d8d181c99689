import GRDB
import Synchronization

/// Counts the commits that changed the library's tracks or directories, so that a cache of library listings can tell
/// whether it is still current (`Library.contentVersion`). One per `Library`, registered on the database's writer when
/// the library is made, before it can change anything; every library change goes through that writer (scans, the
/// finisher, metadata edits).
///
/// GRDB calls it on the writer's queue; `value` may be read from any thread.
final class ContentVersion: TransactionObserver, Sendable {
    private let counter = Atomic<Int>(0)
    /// Whether the open transaction changed a watched table (writer queue only, but kept in a Mutex to be Sendable).
    private let changed = Mutex(false)

    var value: Int { counter.load(ordering: .acquiring) }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        eventKind.tableName == "track" || eventKind.tableName == "directory"
    }

    func databaseDidChange(with event: DatabaseEvent) { changed.withLock { $0 = true } }

    /// Changes GRDB could not see row by row: the scan writer's statements bound through SQLite's C API, reported
    /// with `Database.notifyChanges(in:)`.
    func databaseDidChange() { changed.withLock { $0 = true } }

    func databaseDidCommit(_ db: Database) {
        let wasChanged = changed.withLock { flag in
            defer { flag = false }
            return flag
        }
        if wasChanged { counter.add(1, ordering: .releasing) }
    }

    func databaseDidRollback(_ db: Database) { changed.withLock { $0 = false } }
}
