import AudioCore
import Decoders
import Engine
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

    /// Queues the take after the current entry and plays the first entry queued: alone (at 100 %, as it was recorded
    /// at the tempo heard); after the original's loop at the take's tempo, round by round; or mixed over that loop's
    /// passes (`balance`: the take is decoded whole on a worker thread, resampled to the rate the device will play the
    /// original at — `deviceRate(playing:)` —, and handed to the player before the entry starts).
    public func playTake(id: Int64, _ playback: TakePlayback) async throws {
        let service = try recordingService()
        guard let take = try await service.list().first(where: { $0.id == id }) else {
            throw MPDError(.noExist, "no take \(id)")
        }
        let file = service.takes.folder.takePath(id)
        guard FileManager.default.fileExists(atPath: file) else { throw MPDError(.noExist, "take \(id) has no file") }
        let alone = PlaySpan(startMilliseconds: 0, passes: 1, tempoPercent: 100)
        func original(passes: Int) -> PlaySpan {
            PlaySpan(startMilliseconds: take.loopStartMilliseconds, endMilliseconds: take.loopEndMilliseconds,
                     passes: passes, tempoPercent: min(150, max(50, take.tempoPercent)))
        }
        var uris: [String] = []
        var spans: [PlaySpan?] = []
        var sound: TakeSound?
        var percent = 0
        switch playback {
        case .alone:
            uris = [file]
            spans = [alone]
        case let .alternate(rounds):
            for _ in 0..<rounds {
                uris += [take.path, file]
                spans += [original(passes: 1), alone]
            }
        case let .balance(takePercent, rounds):
            uris = [take.path]
            spans = [original(passes: rounds)]
            percent = takePercent
            let original = try musicGuard.resolve(take.path)
            let (policy, device) = (player.engine.config.formatPolicy, player.engine.position().deviceFormat)
            do {
                sound = try await BlockingWork.run {
                    try TakeSound.load(path: file, rate: Self.deviceRate(playing: original, policy: policy, device: device))
                }
            } catch let error as TakeSound.LoadError {
                throw MPDError(.unknown, "take \(id): \(error.description)")
            }
        }
        do {
            let added = try await player.insert(uris: uris, replayGain: uris.map { _ in ReplayGainInfo() }, spans: spans,
                                                resolvingPosition: { view in
                                                    view.current.flatMap { view.queue.index(of: $0) }.map { $0 + 1 }
                                                })
            guard let first = added.first else { return }
            if let sound {
                await player.setTakeMix(TakeMix(entry: first, loopStartMilliseconds: take.loopStartMilliseconds,
                                                sound: sound, takePercent: percent))
            }
            try await player.perform(.playEntry(first))
        } catch let error as Player.ActionError {
            throw Self.mpdError(error)
        }
    }

    /// The rate the device will play `original` at, which the take is resampled to once, on a worker thread: a fixed
    /// format's; else the open device's under `fixed(nil)`; else (following each track, or no device open) the
    /// original's own. Nil when it cannot be read (the decoder thread then resamples the take if it must).
    static func deviceRate(playing original: String, policy: FormatPolicy, device: AudioFormat?) -> Int? {
        switch policy {
        case let .fixed(format?): return format.sampleRate
        case .fixed(nil): if let device { return device.sampleRate }
        case .follow: break
        }
        return (try? DecoderRegistry.open(path: original))?.format.sampleRate
    }

    static func report(_ take: TakeRecord) -> TakeReport {
        TakeReport(id: take.id, path: take.path, loopStartMilliseconds: take.loopStartMilliseconds,
                   loopEndMilliseconds: take.loopEndMilliseconds, pass: take.pass,
                   tempoPercent: Double(take.tempoPercent), recordedAt: Int64(take.recordedAt.timeIntervalSince1970),
                   seconds: take.seconds, bytes: take.bytes)
    }
}
