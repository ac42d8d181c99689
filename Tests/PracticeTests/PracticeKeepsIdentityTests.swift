import DatabaseFile
import Foundation
import GRDB
import Library
@testable import Practice
import StateDatabase
import Testing
import TestSupport

/// A practised file away from the library for longer than the library keeps a missing identity (30 days: a card in a
/// drawer over the summer) comes back to its statistics, loop and tempo; an identity nothing refers to is still
/// forgotten.
@Suite struct PracticeKeepsIdentityTests {
    @Test func aPractisedFileAwayForMonthsComesBackToItsPractice() async throws {
        let music = try TemporaryDirectory(prefix: "fermata-away")
        let away = try TemporaryDirectory(prefix: "fermata-drawer")
        let state = try TemporaryDirectory(prefix: "fermata-away-state")
        let names = ["memory.flac", "timed.flac", "plain.flac"]
        for (index, name) in names.enumerated() {
            let path = music.file(name)
            try await onThread {
                try FLACFixture.write(path: path, samples: TestSignal.sweep(frames: 22_050, channels: 1, bits: 16,
                                                                            sampleRate: 22_050, seed: UInt64(40 + index)),
                                      channels: 1, bitsPerSample: 16, sampleRate: 22_050)
            }
        }
        let database = try FermataDatabase(stateDirectory: state.path, schema: .practiceFile)
        let library = Library(database: database, musicDirectory: music.path)
        _ = try await library.scan()
        var identities: [String: Int64] = [:]
        for name in names { identities[name] = try #require(try await library.track(path: name)).identityID }

        let practice = PracticeStore(database: database)
        try await practice.saveMemory(TrackMemory(tempoPercent: 80), path: "memory.flac", at: Date())
        try await practice.add([.init(day: "2026-06-01", subject: PracticeSubject(path: "timed.flac")): 120])

        for name in names { try FileManager.default.moveItem(atPath: music.file(name), toPath: away.file(name)) }
        #expect(try await library.scan().removed == 3)
        // Two months pass.
        try await database.pool.write { db in
            try db.execute(sql: "UPDATE missing_identity SET missing_since = missing_since - ?", arguments: [60 * 86_400])
        }
        _ = try await library.scan()
        let missing = try await database.pool.read { db in try Int64.fetchSet(db, sql: "SELECT id FROM missing_identity") }
        #expect(missing == [identities["memory.flac"]!, identities["timed.flac"]!],
                "kept \(missing) of \(identities): the practised two stay, the plain one is forgotten")

        for name in names { try FileManager.default.moveItem(atPath: away.file(name), toPath: music.file(name)) }
        let back = try await library.scan()
        #expect(back.added == 3 && back.identitiesRestored == 2)
        #expect(try await library.track(path: "memory.flac")?.identityID == identities["memory.flac"])
        #expect(try await library.track(path: "timed.flac")?.identityID == identities["timed.flac"])
        #expect(try await library.track(path: "plain.flac")?.identityID != identities["plain.flac"])
        #expect(try await practice.memory(path: "memory.flac")?.tempoPercent == 80)
        let timed = try await practice.tracks(from: "2026-06-01", to: "2026-06-01")
        #expect(timed.map(\.file) == ["timed.flac"] && timed.first?.seconds == 120)
        // Back in the library, the identities are no longer missing: the trigger let the library delete those rows.
        #expect(try await database.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM missing_identity") } == 0)
    }
}
