@testable import Daemon
import AudioCore
import FermataCore
import Foundation
import MPDProtocol
import Recording
import Testing
import TestSupport

/// Recording's driver on a real player over the paced null output and a real state database: no capture device is a
/// clear refusal; a capture device that cannot open is reported in `record`'s status while playback goes on; the takes
/// are listed with their pass and tempo, deleted by id (an unknown id refused), and played back alone or alternating
/// with the original's loop.
@Suite(.serialized) struct RecordingServiceTests {
    static func service(_ rig: TimersRig, device: String) -> RecordingService {
        RecordingService(device: device, outputDevice: "null", budgetMB: 1, engine: rig.engine, player: rig.player,
                         takes: TakeStore(database: rig.database, folder: TakeFolder(stateDirectory: rig.dir.file("state"))),
                         latencies: LatencyStore(database: rig.database), logger: TimersRig.logger,
                         tick: .milliseconds(10))
    }

    @Test(.timeLimit(.minutes(1))) func recordingWithNoDeviceIsRefusedClearly() async throws {
        let rig = try await TimersRig()
        defer { rig.stop() }
        let service = Self.service(rig, device: "")
        rig.backend.recording.withLock { $0 = service }
        do {
            _ = try await rig.backend.recording(true)
            Issue.record("recording went on with no device")
        } catch let error as MPDError {
            #expect(error.message.contains("no capture device: set record.device"), "\(error)")
        }
        #expect(try await rig.backend.recording(nil).on == false)
        #expect(try await rig.backend.recording(false).phase == "off", "off is always allowed")
        do {
            _ = try await rig.backend.measureLatency(rate: nil)
            Issue.record("measured with no device")
        } catch let error as MPDError {
            #expect(error.message.contains("no capture device"), "\(error)")
        }
    }

    @Test(.timeLimit(.minutes(1))) func aDeviceThatCannotOpenIsReportedAndPlaybackGoesOn() async throws {
        let rig = try await TimersRig()
        defer { rig.stop() }
        let service = Self.service(rig, device: "fermata-no-such-capture")
        rig.backend.recording.withLock { $0 = service }
        let driving = Task { await service.drive() }
        defer { driving.cancel() }
        try await rig.backend.editQueue(.add(.uri("wake/1.flac", recursive: false), at: .end))
        try await rig.backend.perform(.play)
        #expect(try await Patience.wait { await rig.player.status().state == .playing })
        #expect(try await rig.backend.recording(true).on)
        #expect(try await Patience.wait { service.status().lastError != nil })
        let report = try await rig.backend.recording(nil)
        #expect(report.lastError?.contains("fermata-no-such-capture") == true, "\(report)")
        #expect(report.phase != "capturing")
        let before = await rig.player.status().elapsed
        #expect(try await Patience.wait {
            let status = await rig.player.status()
            return status.state == .playing && status.elapsed > before + 0.2
        }, "playback went on")
    }

    @Test(.timeLimit(.minutes(1))) func takesAreListedDeletedAndPlayedBack() async throws {
        let rig = try await TimersRig()
        defer { rig.stop() }
        let service = Self.service(rig, device: "")
        rig.backend.recording.withLock { $0 = service }
        let folder = service.takes.folder
        try folder.create()
        // A committed take: its FLAC (one second of the sweep) and the row the service writes for it.
        try await NullSinkPlayer.writeSweep(folder.takePath(3), seconds: 1, seed: 9)
        let loop = RecordingPlan.Loop(entry: 1, path: "wake/1.flac", region: LoopRegion(start: 44_100, end: 88_200),
                                      sourceRate: 44_100, tempoPercent: 85)
        var plan = RecordingPlan(nextID: 3)
        _ = plan.loopChanged(loop, captureFrameNow: 0)
        guard case let .record(take)? = plan.heard(.init(kind: .seam, entry: 1, pass: 4, sourceFrame: 44_100,
                                                         rateRatio: 0.85, captureFrame: 500)).first else {
            Issue.record("no take planned")
            return
        }
        let format = AudioFormat(sampleRate: 44_100, channels: 2, encoding: .s16)
        let record = RecordingService.record(of: take, frames: take.end - take.start, format: format,
                                             bytes: folder.size(of: 3), latencyFrames: 0, at: Date(timeIntervalSince1970: 1_800_000_000))
        try await service.takes.add(record)
        let listed = try await rig.backend.takes(path: nil)
        #expect(listed == [TakeReport(id: 3, path: "wake/1.flac", loopStartMilliseconds: 1_000, loopEndMilliseconds: 2_000,
                                      pass: 4, tempoPercent: 85, recordedAt: 1_800_000_000,
                                      seconds: Double(51_882) / 44_100, bytes: folder.size(of: 3))])
        #expect(try await rig.backend.takes(path: "other.flac").isEmpty)

        // The queue empty: the take alone is its only entry, and plays.
        try await rig.backend.playTake(id: 3, mode: .alone, rounds: 1)
        #expect(try await Patience.wait { await rig.player.status().path == folder.takePath(3) })
        #expect(await rig.player.status().state == .playing)
        // Alternating, after the entry playing: the original's loop at the take's tempo, then the take, twice.
        try await rig.backend.playTake(id: 3, mode: .alternate, rounds: 2)
        let queue = try await rig.queue()
        #expect(queue == [folder.takePath(3), "wake/1.flac", folder.takePath(3), "wake/1.flac", folder.takePath(3)],
                "\(queue)")
        #expect(try await Patience.wait { await rig.player.status().path == "wake/1.flac" })
        let span = await rig.player.status().span
        #expect(span?.startMilliseconds == 1_000 && span?.endMilliseconds == 2_000 && span?.tempoPercent == 85)

        await #expect(throws: MPDError.self) { try await rig.backend.deleteTake(id: 4) }
        await #expect(throws: MPDError.self) { try await rig.backend.playTake(id: 4, mode: .alone, rounds: 1) }
        try await rig.backend.deleteTake(id: 3)
        #expect(try await rig.backend.takes(path: nil).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folder.takePath(3)))
    }
}
