import FermataCore

/// Handlers for transport and playback options (`play` … `replay_gain_status`). Transport goes through `ControlAction`.
///
/// Stateless; run on the executing command's task.
enum PlaybackCommands {
    /// `play [POS]`; no position (or MPD's `-1`) resumes or starts at the current song. As MPD's `PlayPosition`:
    /// with an empty queue that does nothing, and another negative position is `Bad song index`.
    static func play(_ c: inout CommandContext) async throws {
        let position = c.argument(0) == nil ? -1 : try c.int(0)
        guard position >= 0 else {
            guard position == -1 else { throw MPDError.badSongIndex() }
            return try await playAny(c.backend)
        }
        try await c.backend.perform(.playEntry(try await QueueCommands.entryID(at: position, c.backend)))
    }

    /// `playid [ID]`: as MPD's `PlayId`, `-1` (or none) is `play`, another negative id `No such song`.
    static func playID(_ c: inout CommandContext) async throws {
        let id = c.argument(0) == nil ? -1 : try c.int(0)
        guard id >= 0 else {
            guard id == -1 else { throw MPDError.noSuchSong() }
            return try await playAny(c.backend)
        }
        try await c.backend.perform(.playEntry(EntryID(id)))
    }

    /// MPD's `PlayPosition(-1)`: nothing to do for an empty queue, else resume or start the current song.
    static func playAny(_ backend: any MPDBackend) async throws {
        guard try await backend.status().queueLength > 0 else { return }
        try await backend.perform(.play)
    }

    static func pause(_ c: inout CommandContext) async throws {
        guard c.argument(0) != nil else { return try await c.backend.perform(.togglePause) }
        try await c.backend.perform(try c.bool(0) ? .pause : .resume)
    }

    static func stop(_ c: inout CommandContext) async throws { try await c.backend.perform(.stop) }
    /// `next` and `previous` (MPD's `previous` goes to the song before however much of this one was heard; the 3-s
    /// restart is the button's): one action, so one step and one save. While paused they play the song skipped to
    /// (MPD's `PlayOrder` starts it); stopped is MPD's `Not playing` (the buttons move the stopped cursor instead).
    static func next(_ c: inout CommandContext) async throws { try await c.backend.perform(.skipPlaying(forward: true)) }
    static func previous(_ c: inout CommandContext) async throws {
        try await c.backend.perform(.skipPlaying(forward: false))
    }

    static func seek(_ c: inout CommandContext) async throws {
        let id = try await QueueCommands.entryID(at: try c.unsigned(0), c.backend)
        try await seek(entry: id, to: try c.seconds(1), c.backend)
    }

    static func seekID(_ c: inout CommandContext) async throws {
        try await seek(entry: try c.entryID(0), to: try c.seconds(1), c.backend)
    }

    static func seekCurrent(_ c: inout CommandContext) async throws {
        // As MPD: a leading sign makes the time relative to the current position.
        let text = c.arguments[0]
        if text.hasPrefix("+") || text.hasPrefix("-") {
            try await c.backend.perform(.seekBy(seconds: try c.signedSeconds(0)))
        } else {
            try await c.backend.perform(.seek(seconds: try c.seconds(0)))
        }
    }

    /// MPD's seek to another song starts that song first (one action: nothing comes between).
    static func seek(entry: EntryID, to seconds: Double, _ backend: any MPDBackend) async throws {
        try await backend.perform(.seekEntry(entry, seconds: seconds))
    }

    static func setVolume(_ c: inout CommandContext) async throws {
        // MPD's ParseUnsigned(0, 100) and ParseInt(-100, 100): out of range is `Number too large: VALUE`.
        let volume = try ArgumentParser.int(c.arguments[0], in: 0...100)
        try await c.backend.perform(.setVolume(volume))
    }

    static func changeVolume(_ c: inout CommandContext) async throws {
        let delta = try ArgumentParser.int(c.arguments[0], in: -100...100)
        try await c.backend.perform(.changeVolume(by: delta))
    }

    static func getVolume(_ c: inout CommandContext) async throws {
        c.response.line("volume", try await c.backend.status().player.volume)
    }

    static func setRepeat(_ c: inout CommandContext) async throws {
        let on = try c.bool(0)
        try await applyModes(c.backend) { $0.repeat = on }
    }

    /// `single 0|1|oneshot` (MPD's `SingleFromString`).
    static func setSingle(_ c: inout CommandContext) async throws {
        guard c.arguments[0] != "oneshot" else { return try await c.backend.setOption(.singleOneshot) }
        guard let on = ["0": false, "1": true][c.arguments[0]] else {
            throw MPDError.badArgument("Unrecognized single mode, expected 0, 1, or oneshot")
        }
        try await applyModes(c.backend, settingSingle: true) { $0.single = on }
    }

    /// Reads MPD's repeat/single pair, changes it, and sets Fermata's mapped repeat mode and single flag. `repeat`
    /// leaves a `single oneshot` as it is (MPD keeps it); `single` replaces it (`settingSingle`).
    static func applyModes(
        _ backend: any MPDBackend, settingSingle: Bool = false, _ change: (inout (repeat: Bool, single: Bool)) -> Void
    ) async throws {
        let player = try await backend.status().player
        var modes = RepeatSingleMapping.mpd(repeatMode: player.repeatMode, single: player.single)
        change(&modes)
        let target = RepeatSingleMapping.fermata(repeat: modes.repeat, single: modes.single)
        try await backend.perform(.setRepeat(target.repeatMode))
        // Under `.track` Fermata's single flag means nothing: a oneshot keeps it set for when repeat goes off.
        if settingSingle || (target.single != player.single && !player.singleOneshot) {
            try await backend.perform(.setSingle(target.single))
        }
    }

    static func random(_ c: inout CommandContext) async throws { try await c.backend.setOption(.random(try c.bool(0))) }
    /// `consume 0|1|oneshot` (MPD 0.24's `ConsumeFromString`).
    static func consume(_ c: inout CommandContext) async throws {
        switch c.arguments[0] {
        case "0", "1": try await c.backend.setOption(.consume(c.arguments[0] == "1"))
        case "oneshot": try await c.backend.setOption(.consumeOneshot)
        default: throw MPDError.badArgument("Unrecognized consume mode, expected 0, 1, or oneshot")
        }
    }
    static func clearError(_ c: inout CommandContext) async throws { try await c.backend.setOption(.clearError) }

    static func crossfade(_ c: inout CommandContext) async throws {
        try await c.backend.setOption(.crossfade(seconds: try c.unsigned(0)))
    }

    static func replayGainMode(_ c: inout CommandContext) async throws {
        guard let mode = ReplayGainMode(rawValue: c.arguments[0]) else {
            throw MPDError.badArgument("Unrecognized replay gain mode")
        }
        try await c.backend.perform(.setReplayGain(mode))
    }

    static func replayGainStatus(_ c: inout CommandContext) async throws {
        c.response.line("replay_gain_mode", try await c.backend.status().player.replayGain.rawValue)
    }
}
