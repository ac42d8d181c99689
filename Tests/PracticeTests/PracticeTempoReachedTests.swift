import FermataCore
import Foundation
import Practice
import Testing

/// The tempo reached per section per day ("verse: 85 % on Monday, 95 % today"): the fastest loop pass heard to its
/// end in a region that day, written with the time and read back per day in the report; a section keeps its step
/// trainer in the practice memory.
@Suite struct PracticeTempoReachedTests {
    @Test func theFastestPassOfEachDayIsKeptPerRegion() async throws {
        let rig = try PracticeStatsTests.Rig(start: TestTime.date(2025, 3, 10, 18, 0))  // a Monday
        await rig.player.play("a.flac", entry: 1)
        await rig.player.setLoop(seconds: 1.5, 3.25)
        await rig.recorder.observe()
        await rig.play(minutes: 1)  // no pass ended yet: nothing reached
        for percent in [75, 85, 80] {
            await rig.player.passEnded(at: percent)
            await rig.play(minutes: 1)
        }
        await rig.recorder.flush()
        rig.clock.advance(minutes: 24 * 60)  // Tuesday
        await rig.player.passEnded(at: 95)
        await rig.recorder.observe()
        await rig.play(minutes: 1)
        // Another region the same day: its own.
        await rig.player.setLoop(seconds: 4, 6)
        await rig.player.passEnded(at: 70)
        await rig.play(minutes: 1)
        await rig.play(minutes: 1)
        let week = try await rig.recorder.report(.thisWeek)
        let loops = try #require(week.tracks.first?.loops)
        let verse = try #require(loops.first { $0.startSeconds == 1.5 })
        #expect(verse.tempoReached == [PracticeTempoDay(day: "2025-03-10", percent: 85),
                                       PracticeTempoDay(day: "2025-03-11", percent: 95)])
        #expect(loops.first { $0.startSeconds == 4 }?.tempoReached == [PracticeTempoDay(day: "2025-03-11", percent: 70)])
        let monday = try await rig.recorder.report(.day("2025-03-10"))
        #expect(monday.tracks.first?.loops.first?.tempoReached == [PracticeTempoDay(day: "2025-03-10", percent: 85)])
    }

    @Test func aSectionKeepsItsTrainer() async throws {
        let rig = try PracticeStatsTests.Rig(start: TestTime.date(2025, 3, 10, 18, 0))
        await rig.player.play("a.flac", entry: 1)
        let plan = SpeedTrainerPlan(startPercent: 70, stepPercent: 5, everyPasses: 2, ceilingPercent: 100, fallsBack: true)
        _ = try await rig.recorder.editSections(.add(PracticeSection(name: "verse", startMilliseconds: 1_000,
                                                                     endMilliseconds: 5_000, trainer: plan)))
        _ = try await rig.recorder.editSections(.add(PracticeSection(name: "chorus", startMilliseconds: 6_000,
                                                                     endMilliseconds: 9_000, tempoPercent: 90)))
        let sections = try await rig.recorder.sections(path: "a.flac")
        #expect(sections.map(\.trainer) == [plan, nil])
        let bad = PracticeSection(name: "bad", startMilliseconds: 0, endMilliseconds: 1_000,
                                  trainer: SpeedTrainerPlan(startPercent: 90, stepPercent: 5, everyPasses: 2, ceilingPercent: 80))
        await #expect(throws: PracticeRecorder.SectionError.self) { try await rig.recorder.editSections(.add(bad)) }
    }
}
