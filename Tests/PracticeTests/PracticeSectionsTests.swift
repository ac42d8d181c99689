import DatabaseFile
import FermataCore
import Foundation
import GRDB
import Library
@testable import Practice
import Testing
import TestSupport

/// A track's named sections: saved from the A–B loop (its passes and tempo with it), added whole, deleted; handed to
/// the player on entering the track; kept in the real database under the track's identity, so they survive a reopen
/// and follow a moved file; and practice time in a section's region reported under its name.
@Suite struct PracticeSectionsTests {
    typealias Rig = PracticeStatsTests.Rig

    @Test func sectionsAreSavedFromTheLoopAddedAndDeletedAndTheStatisticsNameThem() async throws {
        let rig = try Rig(start: TestTime.date(2025, 3, 12, 10, 0))
        await rig.player.play("a.flac", entry: 1)
        await rig.recorder.observe()
        await #expect(throws: PracticeRecorder.SectionError.self) { try await rig.recorder.editSections(.saveLoop(name: nil)) }
        await rig.player.setLoop(seconds: 2, 4, repeatCount: 3)
        await rig.player.setTempo(80)
        var list = try await rig.recorder.editSections(.saveLoop(name: nil))
        #expect(list == [PracticeSection(name: "section 1", startMilliseconds: 2_000, endMilliseconds: 4_000, passes: 4,
                                         tempoPercent: 80)])
        list = try await rig.recorder.editSections(.add(PracticeSection(name: "solo", startMilliseconds: 10_000,
                                                                        endMilliseconds: 12_500)))
        #expect(list.map(\.name) == ["section 1", "solo"])
        #expect(await rig.player.status().sections == list, "the player holds the new list at once")
        // The same name replaces; a bad section or position is refused and changes nothing.
        list = try await rig.recorder.editSections(.add(PracticeSection(name: "solo", startMilliseconds: 10_000,
                                                                        endMilliseconds: 13_000)))
        #expect(list.map(\.endMilliseconds) == [4_000, 13_000])
        await #expect(throws: PracticeRecorder.SectionError.self) {
            try await rig.recorder.editSections(.add(PracticeSection(name: "x", startMilliseconds: 5, endMilliseconds: 5)))
        }
        await #expect(throws: PracticeRecorder.SectionError.self) { try await rig.recorder.editSections(.delete(2)) }
        // Ten minutes in the first section's loop, then the statistics name it.
        await rig.recorder.observe()
        await rig.play(minutes: 10)
        let report = try await rig.recorder.report(.today)
        #expect(report.tracks.first?.loops.map(\.section) == ["section 1"])
        list = try await rig.recorder.editSections(.delete(0))
        #expect(list.map(\.name) == ["solo"])

        // Another track has none; coming back, the recorder hands the player this one's again.
        await rig.player.play("b.flac", entry: 2)
        await rig.recorder.observe()
        #expect(await rig.player.status().sections.isEmpty)
        await rig.player.play("a.flac", entry: 3)
        await rig.recorder.observe()
        #expect(await rig.player.status().sections.map(\.name) == ["solo"])
    }

    @Test func sectionsSurviveAReopenAndFollowAMovedFile() async throws {
        let music = try TemporaryDirectory(prefix: "fermata-sections")
        let state = try TemporaryDirectory(prefix: "fermata-sections-state")
        let path = music.file("piece.flac")
        try await onThread {
            try FLACFixture.write(path: path, samples: TestSignal.sweep(frames: 22_050, channels: 1, bits: 16,
                                                                        sampleRate: 22_050, seed: 61),
                                  channels: 1, bitsPerSample: 16, sampleRate: 22_050)
        }
        let sections = [
            PracticeSection(name: "intro", startMilliseconds: 0, endMilliseconds: 200, passes: 2, tempoPercent: 70),
            PracticeSection(name: "bars 17–32, \"the hard bit\"", startMilliseconds: 300, endMilliseconds: 900),
        ]
        do {
            let database = try FermataDatabase(stateDirectory: state.path, schema: .practiceFile)
            _ = try await Library(database: database, musicDirectory: music.path).scan()
            try await PracticeStore(database: database).replaceSections(sections, path: "piece.flac")
        }
        try FileManager.default.createDirectory(atPath: music.file("moved"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: path, toPath: music.file("moved/renamed.flac"))
        let database = try FermataDatabase(stateDirectory: state.path, schema: .practiceFile)
        let scan = try await Library(database: database, musicDirectory: music.path).scan()
        #expect(scan.identitiesRestored == 1)
        let store = PracticeStore(database: database)
        #expect(try await store.sections(path: "moved/renamed.flac") == sections)
        #expect(try await store.sections(path: "piece.flac").isEmpty)
    }
}
