import Foundation
import Library
import Testing

@Suite("Library search")
struct SearchTests {
    /// One scanned fixture library shared by the read-only tests of this suite.
    static func scanned() async throws -> (LibraryFixture, Library) {
        let fixture = try LibraryFixture()
        let library = try fixture.openLibrary()
        _ = try await library.scan()
        return (fixture, library)
    }

    @Test("full-text search matches word prefixes over artist, album, title and path, ignoring diacritics")
    func fullText() async throws {
        let (_, library) = try await Self.scanned()
        #expect(try await library.fullTextSearch("beat sub").map(\.title) == ["Yellow Submarine"])
        #expect(try await library.fullTextSearch("YELLOW").map(\.artist) == ["The Beatles"])
        #expect(try await library.fullTextSearch("bjork").count == 1)
        #expect(try await library.fullTextSearch("Titl 12").map(\.title).contains("Title 12"))
        #expect(try await library.fullTextSearch("submarine").map(\.title) == ["Yellow Submarine"])
        #expect(try await library.fullTextSearch("ogg").count == LibraryFixture.oggCount)
        #expect(try await library.fullTextSearch("no-such-word").isEmpty)
        #expect(try await library.fullTextSearch("  ").isEmpty)
        #expect(try await library.fullTextSearch("\"quoted").isEmpty)
        #expect(try await library.fullTextSearch("artist", limit: 5).count == 5)
    }

    @Test("find is exact and case-sensitive; search is a case-insensitive substring match")
    func findAndSearch() async throws {
        let (fixture, library) = try await Self.scanned()
        #expect(try await library.find([.tag(.artist, "Björk")]).map(\.path) == [fixture.entries[7].path])
        #expect(try await library.find([.tag(.artist, "björk")]).isEmpty)
        #expect(try await library.search([.tag(.artist, "BJÖRK")]).count == 1)
        #expect(try await library.search([.tag(.title, "submar")]).map(\.title) == ["Yellow Submarine"])
        let album = try await library.find([.tag(.artist, "Artist 1"), .tag(.album, "Album 2")])
        #expect(album.count == 10)
        #expect(album.map(\.trackNumber) == Array(1...10))
        #expect(try await library.find([.tag(.track, "3"), .tag(.artist, "Artist 1")]).count == 2)
        #expect(try await library.find([TagFilter(.file, fixture.entries[0].path)]).count == 1)
        #expect(try await library.find([TagFilter(.base, "Artist 2")]).count == 20)
        #expect(try await library.find([TagFilter(.base, "Artist")]).isEmpty)
        #expect(try await library.find([TagFilter(.any, "Jazz")]).count == LibraryFixture.count / 4)
        #expect(try await library.search([TagFilter(.any, "yellow sub")]).count == 1)
        #expect(try await library.search([TagFilter(.file, ".OGG")]).count == LibraryFixture.oggCount)
        #expect(try await library.find([], limit: 3).count == 3)
    }

    @Test("list distinct values, grouped; count songs and playtime")
    func listAndCount() async throws {
        let (fixture, library) = try await Self.scanned()
        let artists = try await library.list(.artist).map(\.value)
        #expect(artists.count == Set(fixture.entries.map(\.artist)).count)
        #expect(artists == artists.sorted())
        #expect(try await library.list(.genre).map(\.value) == ["Ambient", "Folk", "Jazz", "Rock"])
        #expect(try await library.list(.album, filters: [.tag(.artist, "Artist 3")]).map(\.value)
            == ["Album 6", "Album 7"])
        let grouped = try await library.list(.album, groupedBy: [.artist])
        #expect(grouped.contains(TagListRow(groups: ["The Beatles"], value: "Album 0")))
        let all = try #require(try await library.count().first)
        #expect(all.songs == LibraryFixture.count)
        #expect(abs(all.playtime - (Double(LibraryFixture.flacCount + LibraryFixture.wavCount) * 0.25
            + Double(LibraryFixture.oggCount))) < 0.01)
        let byGenre = try await library.count(groupedBy: .genre)
        #expect(byGenre.map(\.group) == ["Ambient", "Folk", "Jazz", "Rock"])
        #expect(byGenre.map(\.songs).reduce(0, +) == LibraryFixture.count)
        let stats = try await library.stats()
        #expect(stats.songs == LibraryFixture.count && stats.artists == artists.count)
        #expect(stats.lastScan != nil)
    }

    @Test("directories list their subdirectories and tracks (lsinfo)")
    func directories() async throws {
        let (fixture, library) = try await Self.scanned()
        let top = try #require(try await library.directory(""))
        #expect(top.tracks.isEmpty)
        #expect(top.directories == Set(fixture.entries.map(\.artist)).sorted())
        let album = try #require(try await library.directory("Artist 1/Album 2"))
        #expect(album.directories.isEmpty)
        #expect(album.tracks.map(\.path) == fixture.entries.filter { $0.path.hasPrefix("Artist 1/Album 2/") }
            .map(\.path).sorted())
        #expect(try await library.directory("No/Such") == nil)
    }
}
