import DatabaseFile
import GRDB
import Library
import Testing

/// `Library.contentVersion`, what the daemon's listing cache compares: it moves with every commit that changes tracks
/// or directories, whoever made the commit, and not with writes to other tables of the shared file. The counter is
/// the library's own (registered on the file's writer when the `Library` is made), not the file's.
@Suite("Library content version")
struct ContentVersionTests {
    @Test("a scan that changes tracks moves it; a write to another table of the file does not")
    func movesWithTheLibraryOnly() async throws {
        let fixture = try LibraryFixture()
        let library = try fixture.openLibrary()
        let before = library.contentVersion
        _ = try await library.scan()
        let scanned = library.contentVersion
        #expect(scanned > before, "the first scan added tracks")

        try await library.database.pool.write { db in
            try db.execute(sql: "CREATE TABLE queue_like (x)")
            try db.execute(sql: "INSERT INTO queue_like VALUES (1)")
        }
        #expect(library.contentVersion == scanned, "another module's table is not the library")

        try fixture.touch(fixture.entries[0].path)
        let summary = try await library.scan()
        #expect(summary.updated == 1)
        #expect(library.contentVersion > scanned, "a rescan that updated a track")
    }

    @Test("a second Library on the same file sees the first one's changes")
    func countsCommitsFromAnyWriterUser() async throws {
        let fixture = try LibraryFixture()
        let library = try fixture.openLibrary()
        let other = Library(database: library.database, musicDirectory: fixture.music.path)
        let before = other.contentVersion
        _ = try await library.scan()
        #expect(other.contentVersion > before)
    }
}
