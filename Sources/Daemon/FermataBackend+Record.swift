import FermataCore
import Foundation
import MPDProtocol
import Player
import Recording

/// Recording yourself (`record`, `takes`, `takedelete`, `playtake`, `audiolatency`), answered by the daemon's
/// `RecordingService`.
extension FermataBackend {
    private func recordingService() throws -> RecordingService {
        guard let service = recording.withLock({ $0 }) else { throw MPDError(.unknown, "no recording here") }
        return service
    }

    public func recording(_ on: Bool?) async throws -> RecordReport {
        let service = try recordingService()
        if let on {
            do { try service.set(on: on) } catch { throw MPDError(.unknown, error.description) }
        }
        let status = service.status()
        var phase = "off"
        var rate: Int?
        switch status.phase {
        case .off: phase = "off"
        case .waiting: phase = "waiting"
        case let .capturing(captured):
            phase = "capturing"
            rate = captured
        }
        if status.measuring { phase = "measuring" }
        return RecordReport(device: status.device, on: status.on, phase: phase, rate: rate,
                            latencyMilliseconds: status.latencyMilliseconds, lastError: status.lastError,
                            takes: status.takes)
    }

    public func takes(path: String?) async throws -> [TakeReport] {
        try await recordingService().list(path: path).map(Self.report)
    }

    public func deleteTake(id: Int64) async throws {
        guard try await recordingService().delete(id: id) else { throw MPDError(.noExist, "no take \(id)") }
    }

    public func measureLatency(rate: Int?) async throws -> (milliseconds: Double, frames: Int, rate: Int) {
        do {
            let latency = try await recordingService().measureLatency(rate: rate)
            return (latency.milliseconds, latency.frames, latency.sampleRate)
        } catch let refusal as RecordingService.Refusal {
            throw MPDError(.unknown, refusal.description)
        }
    }

    /// Queues the take (and for `alternate` the original's loop before it, at the take's tempo) after the current
    /// entry, and plays the first entry queued. The take plays at 100 % (it was recorded at the tempo heard).
    public func playTake(id: Int64, mode: TakePlayback, rounds: Int) async throws {
        let service = try recordingService()
        guard let take = try await service.list().first(where: { $0.id == id }) else {
            throw MPDError(.noExist, "no take \(id)")
        }
        let file = service.takes.folder.takePath(id)
        guard FileManager.default.fileExists(atPath: file) else { throw MPDError(.noExist, "take \(id) has no file") }
        let alone = PlaySpan(startMilliseconds: 0, passes: 1, tempoPercent: 100)
        var uris: [String] = []
        var spans: [PlaySpan?] = []
        switch mode {
        case .alone:
            uris = [file]
            spans = [alone]
        case .alternate:
            let original = PlaySpan(startMilliseconds: take.loopStartMilliseconds, endMilliseconds: take.loopEndMilliseconds,
                                    passes: 1, tempoPercent: min(150, max(50, take.tempoPercent)))
            for _ in 0..<rounds {
                uris += [take.path, file]
                spans += [original, alone]
            }
        }
        do {
            let added = try await player.insert(uris: uris, replayGain: uris.map { _ in ReplayGainInfo() }, spans: spans,
                                                resolvingPosition: { view in
                                                    view.current.flatMap { view.queue.index(of: $0) }.map { $0 + 1 }
                                                })
            guard let first = added.first else { return }
            try await player.perform(.playEntry(first))
        } catch let error as Player.ActionError {
            throw Self.mpdError(error)
        }
    }

    static func report(_ take: TakeRecord) -> TakeReport {
        TakeReport(id: take.id, path: take.path, loopStartMilliseconds: take.loopStartMilliseconds,
                   loopEndMilliseconds: take.loopEndMilliseconds, pass: take.pass,
                   tempoPercent: Double(take.tempoPercent), recordedAt: Int64(take.recordedAt.timeIntervalSince1970),
                   seconds: take.seconds, bytes: take.bytes)
    }
}
