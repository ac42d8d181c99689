import Daemon
import Foundation
import Testing
import TestSupport

/// What the statistics cost: bytes written by an hour of 30 s flushes (simulated with the clock) and the time of one
/// observation (the 1 Hz poll). Prints the figures for the README; the bounds are generous on purpose.
@Suite struct PracticeCostTests {
    @Test func anHourOfFlushesWritesLittle() async throws {
        let rig = try PracticeStatsTests.Rig(start: TestTime.date(2025, 3, 12, 10, 0))
        await rig.player.play("Artist/Album/01 Some Track.flac", entry: 1)
        await rig.recorder.observe()
        let before = try Self.writtenBytes()
        for _ in 0..<3600 { await rig.play(minutes: 1.0 / 60) }  // one hour at the 1 Hz poll: 120 flushes
        let written = try Self.writtenBytes() - before
        print("practice: one hour of playing wrote \(written) bytes (write(2) bytes, WAL included)")
        #expect(written < 2_000_000)
        #expect(abs(try await rig.recorder.report(.today).totalSeconds - 3600) < 0.01)
    }

    @Test func anObservationIsCheap() async throws {
        let rig = try PracticeStatsTests.Rig(start: TestTime.date(2025, 3, 12, 10, 0))
        await rig.player.play("a.flac", entry: 1)
        let clock = ContinuousClock()
        let elapsed = await clock.measure {
            for _ in 0..<2000 { rig.clock.advance(seconds: 0.001); await rig.recorder.observe() }
        }
        print("practice: one observation takes \(elapsed / 2000) (flushes every 30 s of clock excluded)")
        #expect(elapsed / 2000 < .milliseconds(5))
    }

    /// `wchar` of this process (bytes handed to write(2) and friends).
    static func writtenBytes() throws -> Int {
        let text = try String(contentsOfFile: "/proc/self/io", encoding: .utf8)
        let line = text.split(separator: "\n").first { $0.hasPrefix("wchar:") } ?? ""
        return Int(line.split(separator: " ").last ?? "") ?? 0
    }
}
