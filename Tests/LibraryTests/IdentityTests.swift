import FermataCore
import Foundation
@testable import Library
import TestSupport
import Testing

@Suite("Track identity and what follows it")
struct IdentityTests {
    /// What an owner attaches to a track in the library: stickers (MPD's `sticker set`, as clients store ratings and
    /// play counts). The daemon's practice data follows the same identity (PracticeMemoryTests).
    static let annotations = ["mood": "calm", "rating": "8", "playcount": "2"]

    static func annotate(_ library: Library, _ path: String) async throws {
        for (name, value) in annotations { try await library.setSticker(path: path, name: name, value: value) }
    }

    static func expectAnnotated(_ library: Library, _ path: String) async throws {
        #expect(try await library.stickers(path: path) == annotations)
        #expect(try await library.sticker(path: path, name: "mood") == "calm")
    }

    /// The stickers kept for an identity, also while no file carries it.
    static func stickers(_ library: Library, identity: Int64) async throws -> [String: String] {
        try await library.database.pool.read { db in try StickerStore.stickers(db, identity: identity) }
    }

    @Test("a renamed file and a file moved to another directory keep their stickers", arguments: [
        "Artist 0/Album 0/renamed.flac", "Elsewhere/Deeper/moved.flac",
    ])
    func renameAndMove(target: String) async throws {
        let fixture = try LibraryFixture()
        let library = try fixture.openLibrary()
        _ = try await library.scan()
        let original = fixture.entries[2].path
        try await Self.annotate(library, original)
        let identity = try #require(try await library.track(path: original)).identityID

        try fixture.move(original, to: target)
        let summary = try await library.scan()
        #expect(summary.added == 1 && summary.removed == 1 && summary.identitiesRestored == 1)
        #expect(try await library.track(path: original) == nil)
        #expect(try await library.track(path: target)?.identityID == identity)
        try await Self.expectAnnotated(library, target)
        #expect(try await library.findStickers(name: "mood").map(\.path) == [target])
    }

    @Test("a file removed and brought back (a card swapped, a NAS offline) gets its stickers back")
    func removeAndReturn() async throws {
        let fixture = try LibraryFixture()
        let library = try fixture.openLibrary()
        _ = try await library.scan()
        let path = fixture.entries[4].path
        try await Self.annotate(library, path)
        let identity = try #require(try await library.track(path: path)).identityID
        let away = try TemporaryDirectory()

        // The whole artist directory goes away, as an unplugged disk would.
        let artist = String(path.split(separator: "/")[0])
        let gone = fixture.entries.filter { $0.artist == artist }.count
        try fixture.move(artist, to: away.file(artist))
        var summary = try await library.scan()
        #expect(summary.removed == gone)
        #expect(try await library.track(path: path) == nil)
        #expect(try await Self.stickers(library, identity: identity) == Self.annotations)   // kept while missing
        await #expect(throws: LibraryError.noSuchTrack(path)) { try await library.stickers(path: path) }

        try fixture.move(away.file(artist), to: artist)
        summary = try await library.scan()
        #expect(summary.added == gone && summary.identitiesRestored == gone)
        #expect(try await library.track(path: path)?.identityID == identity)
        try await Self.expectAnnotated(library, path)
    }

    @Test("copies of one recording keep separate identities; a copy does not share stickers")
    func duplicates() async throws {
        let fixture = try LibraryFixture()
        let library = try fixture.openLibrary()
        _ = try await library.scan()
        let path = fixture.entries[6].path
        try await Self.annotate(library, path)
        try FileManager.default.copyItem(atPath: fixture.file(path), toPath: fixture.file("copy.flac"))
        let summary = try await library.scan()
        #expect(summary.added == 1 && summary.identitiesRestored == 0)
        let copy = try #require(try await library.track(path: "copy.flac"))
        #expect(copy.fingerprint == (try await library.track(path: path))?.fingerprint)
        #expect(copy.identityID != (try await library.track(path: path))?.identityID)
        #expect(try await library.stickers(path: "copy.flac").isEmpty)

        // Both copies vanish; each one's identity comes back to the file at its own old path.
        let away = try TemporaryDirectory()
        try fixture.move(path, to: away.file("a.flac"))
        try fixture.move("copy.flac", to: away.file("b.flac"))
        _ = try await library.scan()
        try fixture.move(away.file("b.flac"), to: "copy.flac")
        try fixture.move(away.file("a.flac"), to: path)
        #expect(try await library.scan().identitiesRestored == 2)
        try await Self.expectAnnotated(library, path)
        #expect(try await library.stickers(path: "copy.flac").isEmpty)
    }

    @Test("new audio at the same path keeps the path's stickers; mv b a moves b's stickers onto a")
    func changedAudio() async throws {
        let fixture = try LibraryFixture()
        let library = try fixture.openLibrary()
        _ = try await library.scan()
        let a = fixture.entries[11].path, b = fixture.entries[12].path
        try await Self.annotate(library, a)
        let identityA = try #require(try await library.track(path: a)).identityID

        // Re-encoded in place (different audio): still the same track for the owner.
        try LibraryFixture.writeFLAC(fixture.file(a), seed: 77_777, tags: ["TITLE": "Re-encoded"])
        try fixture.touch(a)
        var summary = try await library.scan()
        #expect(summary.updated == 1 && summary.identitiesRestored == 0)
        #expect(try await library.track(path: a)?.identityID == identityA)
        try await Self.expectAnnotated(library, a)
        #expect(try await library.fullTextSearch("re-encoded").map(\.path) == [a])

        // b replaces a: b's identity (and stickers) follows b's audio; a's identity waits, missing.
        try await library.setSticker(path: b, name: "who", value: "b")
        let identityB = try #require(try await library.track(path: b)).identityID
        try fixture.move(b, to: fixture.file(a) + ".tmp")
        try FileManager.default.removeItem(atPath: fixture.file(a))
        try fixture.move(a + ".tmp", to: a)
        try fixture.touch(a, seconds: 30)
        summary = try await library.scan()
        #expect(summary.removed == 1 && summary.updated == 1 && summary.identitiesRestored == 1)
        #expect(try await library.track(path: a)?.identityID == identityB)
        #expect(try await library.sticker(path: a, name: "who") == "b")
        #expect(try await Self.stickers(library, identity: identityA)["rating"] == "8")
    }

    @Test("sticker calls are checked")
    func validation() async throws {
        let fixture = try LibraryFixture()
        let library = try fixture.openLibrary()
        _ = try await library.scan()
        let path = fixture.entries[0].path
        await #expect(throws: LibraryError.noSuchTrack("nope.flac")) { try await library.stickers(path: "nope.flac") }
        try await library.setSticker(path: path, name: "a", value: "1")
        try await library.setSticker(path: path, name: "b", value: "2")
        #expect(try await library.stickers(path: path) == ["a": "1", "b": "2"])
        #expect(try await library.deleteSticker(path: path, name: "a"))
        #expect(try await library.deleteSticker(path: path, name: nil))
        #expect(try await library.stickers(path: path).isEmpty)
    }
}
