import FermataCore

/// Printers for the protocol's value types, in MPD's line order.
extension Response {
    /// `file:`, `Range:` (and Fermata's `Section:`, `Passes:`, `Tempo:`) for a part of a file, `Last-Modified:`,
    /// `Added:`, `Format:`, the enabled tags, `Time:`/`duration:`, then `Pos:`/`Id:` for queue songs.
    public mutating func song(_ song: SongInfo, tags enabled: Set<TagType>) {
        line("file", song.uri)
        if let span = song.span {
            if let range = span.mpdRange { line("Range", range) }
            if let name = span.section { line("Section", name) }
            if span.passes != 1 { line("Passes", span.passes) }
            if let tempo = span.tempoPercent { line("Tempo", tempo) }
        }
        if let modified = song.lastModified { line("Last-Modified", iso8601: modified) }
        if let added = song.added { line("Added", iso8601: added) }
        if let format = song.format { line("Format", format) }
        for tag in song.orderedTags where enabled.contains(tag.type) { line(tag.type.rawValue, tag.value) }
        if let duration = song.duration {
            line("Time", ResponseText.wholeSeconds(duration))
            line("duration", seconds: duration)
        }
        if let position = song.queuePosition { line("Pos", position) }
        if let id = song.queueID { line("Id", id) }
        if song.priority != 0 { line("Prio", Int(song.priority)) }
    }

    /// One `lsinfo`/`listallinfo` entry; with `full == false` only the `directory:`/`file:`/`playlist:` line.
    public mutating func directoryEntry(_ entry: DirectoryEntry, tags enabled: Set<TagType>, full: Bool) {
        switch entry {
        case let .directory(path, modified):
            line("directory", path)
            if full, let modified { line("Last-Modified", iso8601: modified) }
        case let .song(info):
            if full { song(info, tags: enabled) } else { line("file", info.uri) }
        case let .playlist(info):
            line("playlist", info.name)
            if full, let modified = info.lastModified { line("Last-Modified", iso8601: modified) }
        }
    }

    /// `status`, in MPD 0.23's order.
    public mutating func status(_ status: MPDStatusInfo) {
        let player = status.player
        let modes = RepeatSingleMapping.mpd(repeatMode: player.repeatMode, single: player.single)
        line("volume", player.volume)
        line("repeat", flag: modes.repeat)
        line("random", flag: status.random)
        if modes.single && player.singleOneshot { line("single", "oneshot") } else { line("single", flag: modes.single) }
        if status.consumeOneshot { line("consume", "oneshot") } else { line("consume", flag: status.consume) }
        line("partition", "default")
        line("playlist", status.queueVersion)
        line("playlistlength", status.queueLength)
        line("mixrampdb", "0")
        line("state", Self.stateName(player.state))
        if status.crossfadeSeconds > 0 { line("xfade", status.crossfadeSeconds) }
        if let position = status.songPosition, let id = player.entryID {
            line("song", position)
            line("songid", id)
        }
        if player.state != .stopped {
            let total = player.duration.map(ResponseText.wholeSeconds) ?? 0
            line("time", "\(ResponseText.wholeSeconds(player.elapsed)):\(total)")
            line("elapsed", seconds: player.elapsed)
            line("bitrate", status.bitrate)
            if let duration = player.duration { line("duration", seconds: duration) }
            if let format = status.audioFormat { line("audio", format) }
        }
        if let job = status.updatingJob { line("updating_db", job) }
        if let error = player.lastError { line("error", error) }
        if let next = status.nextSongPosition, let nextID = status.nextSongID {
            line("nextsong", next)
            line("nextsongid", nextID)
        }
        if let sleep = status.sleepSeconds { line("sleep", sleep) }
    }

    public mutating func stats(_ stats: MPDStats) {
        line("uptime", stats.uptime)
        line("playtime", stats.playtime)
        line("artists", stats.artists)
        line("albums", stats.albums)
        line("songs", stats.songs)
        line("db_playtime", stats.databasePlaytime)
        line("db_update", stats.databaseUpdated)
    }

    public mutating func output(_ output: OutputInfo) {
        line("outputid", output.id)
        line("outputname", output.name)
        line("plugin", output.plugin)
        line("outputenabled", flag: output.enabled)
        for attribute in output.attributes { line("attribute", "\(attribute.name)=\(attribute.value)") }
    }

    static func stateName(_ state: PlayState) -> String {
        switch state {
        case .stopped: "stop"
        case .playing: "play"
        case .paused: "pause"
        }
    }
}
