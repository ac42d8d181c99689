import Foundation
import Glibc
import Testing
import TestSupport

/// A state database written by a released fermatad opens with this version, migrates forward and resumes where it
/// was. The database is `Fixtures/state-2026-11-25.sql`, dumped from the release's own daemon by
/// `Tests/Tools/make-release-state-fixture.sh` (three 20 s songs queued, paused 7.5 s into the second).
@Suite(.timeLimit(.minutes(10)))
struct ReleaseStateTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/state-2026-11-25.sql").path

    @Test func aReleasedStateDatabaseMigratesAndResumesAtItsSavedPosition() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "sqlite3 (deploy/build-deps.sh)")
        let dir = try TemporaryDirectory(prefix: "fermata-release-state")
        let music = dir.file("music")
        try FileManager.default.createDirectory(atPath: music + "/Set", withIntermediateDirectories: true)
        for (index, name) in ["one", "two", "three"].enumerated() {
            let signal = TestSignal.sweep(frames: 22_050 * 20, channels: 1, bits: 16, sampleRate: 22_050,
                                          seed: UInt64(index + 1))
            try WAVFixture.write(path: music + "/Set/\(name).wav", samples: signal, channels: 1, sampleRate: 22_050,
                                 kind: .pcm16)
        }
        let state = dir.file("state")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let database = state + "/library.sqlite"
        let loaded = sqlite(database, ".read \(Self.fixture)")
        try #require(loaded.isEmpty, "sqlite3 .read: \(loaded)")
        #expect(!sqlite(database, "SELECT identifier FROM grdb_migrations").contains("v2-drop-unused-metadata"))

        let daemon = try FermatadProcess.forCrashTest(music: music, state: state, port: TestSocket.freePort(),
                                       log: dir.file("fermatad.log"))
        defer { daemon.stop() }
        let client = try await daemon.connected()
        let status = try client.ok("status")
        #expect(status["state"] == "pause", "\(status)")
        #expect(status["song"] == "1" && status["playlistlength"] == "3", "\(status)")
        #expect(status["elapsed"] == "7.500", "the saved position: \(status)")
        #expect(try client.ok("playlistinfo").all("file") == ["Set/one.wav", "Set/two.wav", "Set/three.wav"])

        // Playing goes on from there: the position moves forward from 7.5 s, in the same song.
        try client.ok("play")
        var elapsed = 0.0
        for _ in 0..<2_000 {
            let now = try client.ok("status")
            elapsed = Double(now["elapsed"] ?? "") ?? 0
            #expect(now["song"] == "1")
            if elapsed > 7.7 { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(elapsed > 7.7 && elapsed < 20, "playing from the saved position: \(elapsed)")

        // The database migrated forward: the new migration is recorded and the unused tables are gone.
        let migrations = sqlite(database, "SELECT identifier FROM grdb_migrations ORDER BY identifier")
        #expect(migrations.contains("v2-drop-unused-metadata") && migrations.contains("v4-queue-segments"), "\(migrations)")
        #expect(sqlite(database, "SELECT count(*) FROM sqlite_master WHERE name IN ('track_metadata', 'loop_region')") == "0")
    }
}
