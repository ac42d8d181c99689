import DatabaseFile
import FermataCore
import Foundation
import GRDB
import Library
import Logging
import Practice
import StateDatabase
import Testing
import TestSupport

/// Practice time: counted only while playing, split at local midnight and at the ISO week boundary, loop regions
/// apart, written to the real database file and read back after a reopen, following a moved file's identity.
@Suite struct PracticeStatsTests {
    /// A recorder on a fresh state database (a real SQLite file) with a scripted player and a manual clock.
    struct Rig {
        let state: TemporaryDirectory
        let database: FermataDatabase
        let player = ScriptedPlayer()
        let clock: ManualClock
        let recorder: PracticeRecorder

        init(start: Date, state: TemporaryDirectory? = nil, remember: Bool = true) throws {
            self.state = try state ?? TemporaryDirectory(prefix: "fermata-practice")
            database = try FermataDatabase(stateDirectory: self.state.path, schema: .practiceFile)
            clock = ManualClock(start)
            recorder = PracticeRecorder(player: player, store: PracticeStore(database: database), remember: remember,
                                        clock: clock, calendar: TestTime.calendar)
        }

        /// Advances the clock, then observes (as the 1 Hz poll does).
        func play(minutes: Double) async {
            clock.advance(minutes: minutes)
            await recorder.observe()
        }
    }

    @Test func playingAcrossMidnightSplitsTheDays() async throws {
        let rig = try Rig(start: TestTime.date(2025, 3, 12, 23, 55))
        await rig.player.play("a.flac", entry: 1)
        await rig.recorder.observe()
        await rig.play(minutes: 2)
        await rig.play(minutes: 8)  // 23:57 to 00:05: the split is inside one observed stretch
        let first = try await rig.recorder.report(.day("2025-03-12"))
        let second = try await rig.recorder.report(.day("2025-03-13"))
        #expect(abs(first.totalSeconds - 300) < 0.001)
        #expect(abs(second.totalSeconds - 300) < 0.001)
        #expect(first.tracks.map(\.file) == ["a.flac"])
        let today = try await rig.recorder.report(.today)
        #expect(today.firstDay == "2025-03-13" && abs(today.totalSeconds - 300) < 0.001)
    }

    @Test func playingFromSundayIntoMondaySplitsTheWeeks() async throws {
        let rig = try Rig(start: TestTime.date(2025, 3, 16, 23, 55))  // a Sunday
        await rig.player.play("a.flac", entry: 1)
        await rig.recorder.observe()
        await rig.play(minutes: 10)  // one observation: the split is the tally's, not the poll's
        let before = try await rig.recorder.report(.week(containing: "2025-03-16"))
        let after = try await rig.recorder.report(.thisWeek)
        #expect(before.firstDay == "2025-03-10" && before.lastDay == "2025-03-16")
        #expect(after.firstDay == "2025-03-17" && after.lastDay == "2025-03-23")
        #expect(abs(before.totalSeconds - 300) < 0.001)
        #expect(abs(after.totalSeconds - 300) < 0.001)
    }

    @Test func pausedAndStoppedTimeIsNotCounted() async throws {
        let rig = try Rig(start: TestTime.date(2025, 3, 12, 10, 0))
        await rig.player.play("a.flac", entry: 1)
        await rig.recorder.observe()
        await rig.play(minutes: 1)
        await rig.player.set(.paused)
        await rig.recorder.observe()
        await rig.play(minutes: 2)
        await rig.player.set(.playing)
        await rig.recorder.observe()
        await rig.play(minutes: 0.5)
        await rig.player.set(.stopped)
        await rig.recorder.observe()
        await rig.play(minutes: 5)
        let report = try await rig.recorder.report(.today)
        #expect(abs(report.totalSeconds - 90) < 0.001)
    }

    @Test func loopRegionTimeIsCountedApart() async throws {
        let rig = try Rig(start: TestTime.date(2025, 3, 12, 10, 0))
        await rig.player.play("a.flac", entry: 1)
        await rig.recorder.observe()
        await rig.play(minutes: 1)
        await rig.player.setLoop(seconds: 1.5, 3.25)
        await rig.recorder.observe()
        await rig.play(minutes: 0.5)
        await rig.play(minutes: 0.5)
        let report = try await rig.recorder.report(.today)
        let track = try #require(report.tracks.first)
        #expect(abs(track.seconds - 120) < 0.001)
        #expect(track.loops.count == 1)
        #expect(track.loops.first?.startSeconds == 1.5 && track.loops.first?.endSeconds == 3.25)
        #expect(abs((track.loops.first?.seconds ?? 0) - 60) < 0.001)
    }

    @Test func statisticsSurviveARestartAndAreWrittenEveryFlushInterval() async throws {
        let state = try TemporaryDirectory(prefix: "fermata-practice")
        let start = TestTime.date(2025, 3, 12, 10, 0)
        do {
            let rig = try Rig(start: start, state: state)
            await rig.player.play("a.flac", entry: 1)
            await rig.recorder.observe()
            await rig.play(minutes: 0.75)  // 45 s: past the 30 s flush interval, written without any stop
            let other = PracticeRecorder(player: ScriptedPlayer(), store: PracticeStore(database: rig.database),
                                         clock: rig.clock, calendar: TestTime.calendar)
            #expect(abs(try await other.report(.today).totalSeconds - 45) < 0.001)
            await rig.play(minutes: 0.25)
            await rig.recorder.finish()  // shutdown: the last 15 s
        }
        let rig = try Rig(start: start.addingTimeInterval(3600), state: state)
        let report = try await rig.recorder.report(.day("2025-03-12"))
        #expect(abs(report.totalSeconds - 60) < 0.001)
    }

    @Test func timeFollowsAMovedFile() async throws {
        let music = try TemporaryDirectory(prefix: "fermata-practice-music")
        try FileManager.default.createDirectory(atPath: music.file("old"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: music.file("new"), withIntermediateDirectories: true)
        let samples = TestSignal.sweep(frames: 4410, channels: 2, bits: 16, seed: 3)
        try FLACFixture.write(path: music.file("old/etude.flac"), samples: samples, channels: 2, bitsPerSample: 16,
                              sampleRate: 44_100, tags: ["TITLE": "Etude", "ARTIST": "Czerny"])
        let rig = try Rig(start: TestTime.date(2025, 3, 12, 10, 0))
        let library = Library(database: rig.database, musicDirectory: music.path)
        _ = try await library.scan()
        await rig.player.play("old/etude.flac", entry: 1)
        await rig.recorder.observe()
        await rig.play(minutes: 1)
        await rig.player.set(.stopped)
        await rig.recorder.observe()
        try FileManager.default.moveItem(atPath: music.file("old/etude.flac"), toPath: music.file("new/renamed.flac"))
        _ = try await library.scan()
        await rig.player.play("new/renamed.flac", entry: 2)
        await rig.recorder.observe()
        await rig.play(minutes: 0.5)
        let report = try await rig.recorder.report(.today)
        #expect(report.tracks.count == 1)
        let track = try #require(report.tracks.first)
        #expect(track.file == "new/renamed.flac" && track.title == "Etude" && track.artist == "Czerny")
        #expect(abs(track.seconds - 90) < 0.001)
    }

    @Test func aFailingDiskLosesNothingAndStopsNothing() async throws {
        let rig = try Rig(start: TestTime.date(2025, 3, 12, 10, 0))
        try await rig.database.pool.write { try $0.execute(sql: "DROP TABLE practice_time") }  // every write fails
        await rig.player.play("a.flac", entry: 1)
        await rig.recorder.observe()
        await rig.play(minutes: 1)
        try await rig.database.pool.write { db in
            try db.execute(sql: """
                CREATE TABLE practice_time (day TEXT NOT NULL, subject TEXT NOT NULL, identity_id INTEGER,
                    path TEXT NOT NULL, loop_start_ms INTEGER NOT NULL DEFAULT -1,
                    loop_end_ms INTEGER NOT NULL DEFAULT -1, seconds REAL NOT NULL,
                    PRIMARY KEY (day, subject, loop_start_ms, loop_end_ms)) WITHOUT ROWID
                """)
        }
        await rig.play(minutes: 1)
        #expect(abs(try await rig.recorder.report(.today).totalSeconds - 120) < 0.001)
    }
}
