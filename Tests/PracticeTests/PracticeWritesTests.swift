import Foundation
import Practice
import Synchronization
import Testing

/// The web remote's `practice` event: the recorder tells when an observation has written practice time (playing
/// paused, the track or loop changed, every 30 s while playing), and not for what a report writes, so a page that
/// reloads its chart at the news does not set off another write and another event.
@Suite struct PracticeWritesTests {
    /// How many times the recorder told.
    final class Told: Sendable {
        let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
    }

    @Test func observationsThatWriteAreToldAndReportsAreNot() async throws {
        let rig = try PracticeStatsTests.Rig(start: TestTime.date(2025, 3, 12, 10, 0))
        let told = Told()
        await rig.recorder.reportWrites { told.count.withLock { $0 += 1 } }
        await rig.player.play("a.flac", entry: 1)
        await rig.recorder.observe()
        #expect(told.value == 0, "starting to play writes nothing")
        await rig.play(minutes: 0.1)
        #expect(told.value == 0, "6 s of playing wait for the next write")
        await rig.player.set(.paused)
        await rig.recorder.observe()
        #expect(told.value == 1, "a pause writes the time played")
        await rig.player.set(.playing)
        await rig.recorder.observe()
        await rig.play(minutes: 0.2)
        let report = try await rig.recorder.report(.today)
        #expect(abs(report.totalSeconds - 18) < 0.001)
        #expect(told.value == 1, "a report's own write is not told")
        await rig.play(minutes: 1)
        #expect(told.value == 2, "a minute of playing is written (every 30 s)")
    }
}
