import Decoders
import Foundation
import GRDB
@testable import Library
import Testing
import TestSupport

/// Queue adds read the library from memory (`QueueFileIndex`): the answers must be exactly what the SQL gave
/// (byte order, the `dir/` prefix rule, names that sort between `dir/` and `dir0`), and a change must never be
/// answered from an index read before it.
@Suite struct QueueFileIndexTests {
    /// What the SQL answered before the index existed, kept as the reference.
    static func reference(_ library: Library, under directory: String) async throws -> [String] {
        try await library.database.pool.read { db in
            let (range, arguments) = LibrarySearch.below(directory)
            return try String.fetchAll(db, sql: "SELECT path FROM track WHERE \(range) ORDER BY path", arguments: arguments)
        }
    }

    @Test func answersAsTheSQLDidAndFollowsChanges() async throws {
        let fixture = try LibraryFixture()
        // Names whose byte order differs from Swift's String order, and neighbours of a directory's name.
        let awkward = ["Zeta/É first.flac", "Zeta/e second.flac", "Zeta0.flac", "Zeta-/x.flac", "Zeta/Sub/z.flac",
                       "Zeta/ß.flac", "Zeta.flac", "zeta/lower.flac"]
        for (seed, path) in awkward.enumerated() {
            try fixture.addFLAC(path, seed: UInt64(100 + seed), tags: ["TITLE": path, "REPLAYGAIN_TRACK_GAIN": "-\(seed).5 dB"])
        }
        let library = try fixture.openLibrary()
        _ = try await library.scan()
        let directories = ["", "Zeta", "Zeta/Sub", "zeta", "Zeta-", "Nope", "Ze"] + fixture.entries.prefix(5).map {
            String($0.path.split(separator: "/")[0])
        }
        for directory in directories {
            let expected = try await Self.reference(library, under: directory)
            #expect(try await library.queueFiles(under: directory).map(\.path) == expected, "under \(directory)")
        }
        let gains = try await library.replayGains(paths: awkward + ["not/there.flac"])
        #expect(gains.compactMap { $0 }.count == awkward.count && gains.last! == nil)
        #expect(gains[2]?.trackGain == -2.5, "Zeta0.flac")
        // Byte for byte, as SQL's `path = ?`: the same name decomposed (É as E + U+0301, equal as a Swift String) is
        // another file the library does not have; so are a directory and a prefix of a name.
        let near = try await library.replayGains(paths: ["Zeta/E\u{301} first.flac", "Zeta", "Zeta/", "Zeta/É"])
        #expect(near == [nil, nil, nil, nil])
        let sql = try await library.database.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM track WHERE path = ?", arguments: ["Zeta/E\u{301} first.flac"])
        }
        #expect(sql == 0)

        // A scan that adds, changes and removes files: the next answers see it (never the index read before).
        try fixture.addFLAC("Zeta/new.flac", seed: 300, tags: ["REPLAYGAIN_TRACK_GAIN": "-9 dB"])
        try fixture.addFLAC("Zeta0.flac", seed: 301, tags: ["REPLAYGAIN_TRACK_GAIN": "-7 dB"])
        try fixture.touch("Zeta0.flac")
        try FileManager.default.removeItem(atPath: fixture.file("Zeta/ß.flac"))
        _ = try await library.scan()
        #expect(try await library.queueFiles(under: "Zeta").map(\.path) == Self.reference(library, under: "Zeta"))
        #expect(try await library.queueFiles(under: "Zeta").map(\.path).contains("Zeta/new.flac"))
        let after = try await library.replayGains(paths: ["Zeta/new.flac", "Zeta0.flac", "Zeta/ß.flac"])
        #expect(after[0]?.trackGain == -9 && after[1]?.trackGain == -7 && after[2] == nil)
    }
}
