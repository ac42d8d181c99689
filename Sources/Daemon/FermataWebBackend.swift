import Decoders
import FermataConfig
import FermataCore
import Foundation
import Library
import MPDProtocol
import WebRemote

/// The daemon's side of the web remote: the MPD backend itself (so a tap on the page and an MPD client's command are
/// the same call), the library's full-text search, what `fermata doctor` says (the daemon's view of it), the volume
/// limits, where uploads go, and learning a card from the next swipe.
///
/// A value; the web server's request tasks call it concurrently.
struct FermataWebBackend: WebBackend {
    let backend: FermataBackend
    let library: Library
    let config: DaemonConfig
    let cards: CardService

    var mpd: any MPDBackend { backend }

    var volumeLimits: (max: Int, start: Int?) {
        (config.volumeMax, config.volumeStart >= 0 ? config.volumeStart : nil)
    }

    /// The upload folder, when `web.uploads` names one and fermatad may write in the music directory.
    var uploads: WebUploads? {
        guard !config.webUploads.isEmpty, access(config.musicDirectory, W_OK | X_OK) == 0 else { return nil }
        return WebUploads(musicDirectory: config.musicDirectory, folder: config.webUploads,
                          maxBytes: Int64(config.webUploadMaxMB) << 20)
    }

    func search(_ text: String, limit: Int) async throws -> [SongInfo] {
        try await library.fullTextSearch(text, limit: limit).map(SongInfo.init)
    }

    func findings() async -> [WebFinding] {
        let issues = try? await backend.scanIssues()
        let doctor = Doctor(configPath: config.file ?? "/etc/fermata/fermata.toml", settings: config)
        let found = await BlockingWork.run { doctor.findings(scanIssues: issues) }
        let status = try? await backend.status()
        var out = [WebFinding(ok: true, what: "fermatad \(FermataVersion.number) is running")]
        if let error = status?.player.lastError {
            out.append(WebFinding(ok: false, what: "the player says: \(error)", fix: "see journalctl -u fermata"))
        }
        return out + found.map { WebFinding(ok: $0.ok, what: $0.what, fix: $0.fix) }
    }

    func playableFormat(ofFile path: String) -> String? { try? DecoderRegistry.formatName(path: path) }

    func learnNextCard(target: String, volumeMax: Int?) async throws {
        guard let parsed = CardTarget(parsing: target) else { throw MPDError.badArgument(CardTarget.expected) }
        try await cards.learnNext(target: parsed, volumeMax: volumeMax)
    }

    func stopLearningCard() async throws { await cards.stopLearning() }

    func cardLearning() async -> String? { await cards.learningTarget }
}
