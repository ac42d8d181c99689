import FermataCore
import Foundation
import MPDProtocol

/// The two readings both a request and the event hub make: the status (`GET /api/status`, the `status` event) and the
/// scan's progress (the box page, the `scan` event), from the MPD backend's answers.
///
/// A value; any task.
struct WebReadings: Sendable {
    let backend: any WebBackend

    /// The status as `GET /api/status` and the `status` event give it.
    func status() async throws -> WebJSON.Status {
        let info = try await WebAPI.calling { try await backend.mpd.status() }
        let player = info.player
        var song: WebJSON.Song?
        if let id = player.entryID, let found = try? await backend.mpd.queueSongs(.id(id)).first { song = WebJSON.Song(found) }
        let rate = Double(max(player.sourceSampleRate, 1))
        let known = player.sourceSampleRate > 0
        let section = player.activeSection.flatMap { index in
            player.sections.indices.contains(index) ? WebJSON.Section(player.sections[index], index: index) : nil
        }
        return WebJSON.Status(
            state: Self.stateName(player.state), elapsed: player.state == .stopped ? 0 : player.elapsed,
            duration: Self.fileDuration(player: player, song: song), song: song,
            stream: player.stream.map { WebJSON.Stream(name: $0.name, title: $0.title) }, nextId: info.nextSongID,
            volume: player.volume,
            volumeMax: backend.volumeLimits.max, repeat: player.repeatMode != .off, random: info.random,
            single: player.single, consume: info.consume, tempo: player.tempoPercent,
            transpose: Double(player.transposeCents) / 100, bpm: player.beat?.bpm, metronome: player.metronome != nil,
            countIn: player.countIn?.beats, trainer: player.trainer?.words, passTempo: player.lastPassTempoPercent,
            loop: known ? player.loop.map {
                WebJSON.Loop(start: Double($0.start) / rate, end: Double($0.end) / rate, passes: $0.repeatCount.map { $0 + 1 },
                             pass: player.loopPass)
            } : nil,
            loopA: known ? player.loopPendingA.map { Double($0) / rate } : nil, section: section,
            sections: player.sections.count, queueVersion: Int(info.queueVersion), queueLength: info.queueLength,
            error: player.lastError, sleep: info.sleepSeconds)
    }

    /// The length of the file playing, as `elapsed` is its position: the backend's reading of the file (MPD's
    /// `duration`), else the song's own when it plays the whole file. A ranged entry's song gives its part's length,
    /// which used to be sent beside the file's position (a bar past its end); a stream has none.
    static func fileDuration(player: PlayerStatus, song: WebJSON.Song?) -> Double? {
        if player.stream != nil { return nil }
        return player.duration ?? (song?.range == nil ? song?.duration : nil)
    }

    static func stateName(_ state: PlayState) -> String {
        switch state {
        case .playing: "play"
        case .paused: "pause"
        case .stopped: "stop"
        }
    }

    /// Where the library's scan is, as the `scan` event and the box page show it.
    func scan() async throws -> WebJSON.Scan {
        let report = try await WebAPI.calling { try await backend.mpd.scanReport() }
        let running = report.phase == "scanning" || report.phase == "finishing"
        let summary = report.lastSummary.isEmpty ? nil
            : report.lastSummary.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return WebJSON.Scan(running: running, phase: report.phase, done: report.filesSeen, total: nil, summary: summary)
    }
}
