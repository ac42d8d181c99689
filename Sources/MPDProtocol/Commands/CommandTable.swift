import FermataCore

/// The command table as data, sorted by name (byte order) for binary search, as in MPD's `AllCommands.cxx`.
/// `commands` and `notcommands` derive from it and the client's permissions. A test keeps it sorted and unique.
///
/// Immutable; shared by all connections.
public enum CommandTable {
    public static let commands: [CommandSpec] = [
        CommandSpec("add", .add, 1, 2, QueueCommands.add),
        CommandSpec("addid", .add, 1, 2, QueueCommands.addID),
        CommandSpec("albumart", .read, 2, 2, CoverArtCommands.albumArt),
        CommandSpec("announce", .control, 0, 1, FermataCommands.announce),
        CommandSpec("announce_mode", .control, 1, 2, FermataCommands.announceMode),
        CommandSpec("binarylimit", .none, 1, 1, ConnectionCommands.binaryLimit),
        CommandSpec("bpm", .control, 0, 1, FermataCommands.bpm),
        CommandSpec("cardassign", .admin, 2, 3, FermataCommands.cardAssign),
        CommandSpec("cardforget", .admin, 1, 1, FermataCommands.cardForget),
        CommandSpec("cardlearn", .admin, 1, 2, FermataCommands.cardLearn),
        CommandSpec("cardread", .control, 1, 1, FermataCommands.cardRead),
        CommandSpec("cards", .read, 0, 0, FermataCommands.cards),
        CommandSpec("channels", .read, 0, 0, MessageCommands.channels),
        CommandSpec("clear", .control, 0, 0, QueueCommands.clear),
        CommandSpec("clearerror", .control, 0, 0, PlaybackCommands.clearError),
        CommandSpec("close", .none, 0, nil, ConnectionCommands.close),
        CommandSpec("commands", .none, 0, 0, ConnectionCommands.commands),
        CommandSpec("consume", .control, 1, 1, PlaybackCommands.consume),
        CommandSpec("count", .read, 1, nil, DatabaseCommands.count),
        CommandSpec("count_in", .control, 1, 3, FermataCommands.countIn),
        CommandSpec("crossfade", .control, 1, 1, PlaybackCommands.crossfade),
        CommandSpec("currentsong", .read, 0, 0, StatusCommands.currentSong),
        CommandSpec("decoders", .read, 0, 0, ConnectionCommands.decoders),
        CommandSpec("delete", .control, 1, 1, QueueCommands.delete),
        CommandSpec("deleteid", .control, 1, 1, QueueCommands.deleteID),
        CommandSpec("disableoutput", .admin, 1, 1, OutputCommands.disable),
        CommandSpec("enableoutput", .admin, 1, 1, OutputCommands.enable),
        CommandSpec("find", .read, 1, nil, DatabaseCommands.find),
        CommandSpec("findadd", .add, 1, nil, DatabaseCommands.findAdd),
        CommandSpec("getvol", .read, 0, 0, PlaybackCommands.getVolume),
        CommandSpec("idle", .read, 0, nil, ConnectionCommands.idle),
        CommandSpec("list", .read, 1, nil, DatabaseCommands.list),
        CommandSpec("listall", .read, 0, 1, DatabaseCommands.listAll),
        CommandSpec("listallinfo", .read, 0, 1, DatabaseCommands.listAllInfo),
        CommandSpec("listfiles", .read, 0, 1, DatabaseCommands.listFiles),
        CommandSpec("listplaylist", .read, 1, 2, StoredPlaylistCommands.listPlaylist),
        CommandSpec("listplaylistinfo", .read, 1, 2, StoredPlaylistCommands.listPlaylistInfo),
        CommandSpec("listplaylists", .read, 0, 0, StoredPlaylistCommands.listPlaylists),
        CommandSpec("load", .add, 1, 3, StoredPlaylistCommands.load),
        CommandSpec("loop_a", .control, 0, 0, FermataCommands.loopA),
        CommandSpec("loop_b", .control, 0, 0, FermataCommands.loopB),
        CommandSpec("loop_clear", .control, 0, 0, FermataCommands.loopClear),
        CommandSpec("loop_cycle", .control, 0, 0, FermataCommands.loopCycle),
        CommandSpec("loop_last", .control, 0, 3, FermataCommands.loopLast),
        CommandSpec("loop_nudge", .control, 2, 2, FermataCommands.loopNudge),
        CommandSpec("loop_set", .control, 2, 3, FermataCommands.loopSet),
        CommandSpec("loop_status", .read, 0, 0, FermataCommands.loopStatus),
        CommandSpec("lsinfo", .read, 0, 1, DatabaseCommands.lsinfo),
        CommandSpec("move", .control, 2, 2, QueueCommands.move),
        CommandSpec("moveid", .control, 2, 2, QueueCommands.moveID),
        CommandSpec("next", .control, 0, 0, PlaybackCommands.next),
        CommandSpec("notcommands", .none, 0, 0, ConnectionCommands.notCommands),
        CommandSpec("outputs", .read, 0, 0, OutputCommands.outputs),
        CommandSpec("password", .none, 1, 1, ConnectionCommands.password),
        CommandSpec("pause", .control, 0, 1, PlaybackCommands.pause),
        CommandSpec("ping", .none, 0, 0, ConnectionCommands.ping),
        CommandSpec("play", .control, 0, 1, PlaybackCommands.play),
        CommandSpec("playid", .control, 0, 1, PlaybackCommands.playID),
        CommandSpec("playlistadd", .control, 2, 3, StoredPlaylistCommands.add),
        CommandSpec("playlistclear", .control, 1, 1, StoredPlaylistCommands.clear),
        CommandSpec("playlistdelete", .control, 2, 2, StoredPlaylistCommands.delete),
        CommandSpec("playlistfind", .read, 1, nil, QueueCommands.find),
        CommandSpec("playlistid", .read, 0, 1, QueueCommands.playlistID),
        CommandSpec("playlistinfo", .read, 0, 1, QueueCommands.playlistInfo),
        CommandSpec("playlistlength", .read, 1, 1, StoredPlaylistCommands.length),
        CommandSpec("playlistmove", .control, 3, 3, StoredPlaylistCommands.move),
        CommandSpec("playlistsearch", .read, 1, nil, QueueCommands.search),
        CommandSpec("plchanges", .read, 1, 2, QueueCommands.changes),
        CommandSpec("plchangesposid", .read, 1, 2, QueueCommands.changesPositionID),
        CommandSpec("practice", .read, 0, 2, PracticeCommands.practice),
        CommandSpec("previous", .control, 0, 0, PlaybackCommands.previous),
        CommandSpec("prio", .control, 2, nil, QueueCommands.priority),
        CommandSpec("prioid", .control, 2, nil, QueueCommands.priorityID),
        CommandSpec("protocol", .none, 0, nil, ConnectionCommands.protocolFeatures),
        CommandSpec("random", .control, 1, 1, PlaybackCommands.random),
        CommandSpec("readmessages", .read, 0, 0, MessageCommands.readMessages),
        CommandSpec("readpicture", .read, 2, 2, CoverArtCommands.readPicture),
        CommandSpec("rename", .control, 2, 2, StoredPlaylistCommands.rename),
        CommandSpec("repeat", .control, 1, 1, PlaybackCommands.setRepeat),
        CommandSpec("replay_gain_mode", .control, 1, 1, PlaybackCommands.replayGainMode),
        CommandSpec("replay_gain_status", .read, 0, 0, PlaybackCommands.replayGainStatus),
        CommandSpec("rescan", .control, 0, 1, DatabaseCommands.rescan),
        CommandSpec("rm", .control, 1, 1, StoredPlaylistCommands.remove),
        CommandSpec("save", .control, 1, 2, StoredPlaylistCommands.save),
        CommandSpec("scan_issues", .read, 0, 0, FermataCommands.scanIssues),
        CommandSpec("scan_status", .read, 0, 0, FermataCommands.scanStatus),
        CommandSpec("search", .read, 1, nil, DatabaseCommands.search),
        CommandSpec("searchadd", .add, 1, nil, DatabaseCommands.searchAdd),
        CommandSpec("searchcount", .read, 1, nil, DatabaseCommands.searchCount),
        CommandSpec("searchplaylist", .read, 2, 4, StoredPlaylistCommands.search),
        CommandSpec("seek", .control, 2, 2, PlaybackCommands.seek),
        CommandSpec("seekcur", .control, 1, 1, PlaybackCommands.seekCurrent),
        CommandSpec("seekid", .control, 2, 2, PlaybackCommands.seekID),
        CommandSpec("sendmessage", .read, 2, 2, MessageCommands.sendMessage),
        CommandSpec("setvol", .control, 1, 1, PlaybackCommands.setVolume),
        CommandSpec("shuffle", .control, 0, 1, QueueCommands.shuffle),
        CommandSpec("single", .control, 1, 1, PlaybackCommands.setSingle),
        CommandSpec("speed_trainer", .control, 1, 4, FermataCommands.speedTrainer),
        CommandSpec("stats", .read, 0, 0, StatusCommands.stats),
        CommandSpec("status", .read, 0, 0, StatusCommands.status),
        CommandSpec("sticker", .admin, 3, nil, StickerCommands.sticker),
        CommandSpec("stickernames", .admin, 0, 0, StickerCommands.names),
        CommandSpec("stickernamestypes", .admin, 0, 1, StickerCommands.namesTypes),
        CommandSpec("stickertypes", .admin, 0, 0, StickerCommands.types),
        CommandSpec("stop", .control, 0, 0, PlaybackCommands.stop),
        CommandSpec("subscribe", .read, 1, 1, MessageCommands.subscribe),
        CommandSpec("swap", .control, 2, 2, QueueCommands.swap),
        CommandSpec("swapid", .control, 2, 2, QueueCommands.swapID),
        CommandSpec("tagtypes", .none, 0, nil, ConnectionCommands.tagTypes),
        CommandSpec("tap_tempo", .control, 0, 0, FermataCommands.tapTempo),
        CommandSpec("tempo", .control, 0, 1, FermataCommands.tempo),
        CommandSpec("toggleoutput", .admin, 1, 1, OutputCommands.toggle),
        CommandSpec("transpose", .control, 0, 1, FermataCommands.transpose),
        CommandSpec("unsubscribe", .read, 1, 1, MessageCommands.unsubscribe),
        CommandSpec("update", .control, 0, 1, DatabaseCommands.update),
        CommandSpec("urlhandlers", .read, 0, 0, ConnectionCommands.urlHandlers),
        CommandSpec("volume", .control, 1, 1, PlaybackCommands.changeVolume),
    ]

    /// The command named exactly `name` (binary search; names compare as UTF-8 bytes).
    public static func lookup(_ name: String) -> CommandSpec? {
        var (low, high) = (0, commands.count)
        while low < high {
            let middle = (low + high) / 2
            let candidate = commands[middle].name
            if candidate == name { return commands[middle] }
            if candidate.utf8.lexicographicallyPrecedes(name.utf8) { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// Commands a client with `permissions` may run on a backend with `capabilities`, in table order.
    public static func available(to permissions: Permission, _ capabilities: BackendCapabilities) -> [CommandSpec] {
        commands.filter {
            permissions.isSuperset(of: $0.permission) && (capabilities.stickers || !$0.name.hasPrefix("sticker"))
        }
    }
}
