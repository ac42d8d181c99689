import FermataCore
import MPDProtocol

/// An `MPDBackend` held entirely in memory: a small library, a queue with versions, stored playlists, stickers,
/// outputs and cover pictures, and a player that only keeps state. For component tests of the protocol and server.
///
/// An actor: every method may be called from any task. `performed` records the `ControlAction`s received.
public actor InMemoryBackend: MPDBackend {
    public nonisolated let idle = IdleBroadcaster()
    public nonisolated let capabilities = BackendCapabilities(
        decoders: [
            DecoderPluginInfo(name: "flac", suffixes: ["flac"], mimeTypes: ["audio/flac", "audio/x-flac"]),
            DecoderPluginInfo(name: "vorbis", suffixes: ["ogg", "oga"], mimeTypes: ["audio/ogg"]),
            DecoderPluginInfo(name: "wav", suffixes: ["wav"], mimeTypes: ["audio/wav"]),
        ],
        urlHandlers: [], stickers: true
    )

    struct QueueItem {
        var id: EntryID
        var uri: String
        /// The queue version at which this entry was added or last changed position.
        var version: UInt32
        /// MPD's priority (kept and printed; this double plays in list order only).
        var priority: UInt8 = 0
        /// The part of the file it plays (`rangeid`; kept and printed).
        var span: PlaySpan?
    }

    var library: [SongInfo]
    var queue: [QueueItem] = []
    var queueVersion: UInt32 = 1
    var nextID: EntryID = 1
    var player = PlayerStatus()
    var random = false
    var consume = false
    var consumeOneshot = false
    var crossfade = 0
    var updateJob = 0
    var storedPlaylists: [String: (uris: [String], modified: Int64)] = [:]
    var stickers: [String: [String: String]] = [:]
    var outputList: [OutputInfo] = [
        OutputInfo(
            id: 0, name: "ALSA default", plugin: "alsa", enabled: true, attributes: [OutputAttribute("dop", "0")]),
        OutputInfo(id: 1, name: "Null", plugin: "null", enabled: false),
    ]
    /// Embedded pictures by song URI, and `cover.*` files by directory.
    var embeddedPictures: [String: (bytes: [UInt8], mime: String)] = [:]
    var directoryCovers: [String: [UInt8]] = [:]
    /// The sleep timer's seconds left (no clock: it stays as set) and the alarms (`InMemoryBackend+Timers`).
    var sleepSeconds: Int?
    var alarmList: [Alarm] = []
    /// Recording as plain values (`InMemoryBackend+Record`): on or off, the takes, the takes played.
    var recordOn = false
    public var takeList: [TakeReport] = []
    public var playedTakes: [String] = []

    /// Every transport action received, in order.
    public private(set) var performed: [ControlAction] = []

    public init(library: [SongInfo] = SampleLibrary.songs) {
        self.library = library
        player.sourceSampleRate = 44_100
    }

    // MARK: Test set-up

    public func setPicture(uri: String, bytes: [UInt8], mime: String) { embeddedPictures[uri] = (bytes, mime) }
    public func setDirectoryCover(directory: String, bytes: [UInt8]) { directoryCovers[directory] = bytes }
    public func setLibrary(_ songs: [SongInfo]) { library = songs }

    public func setPlayer(_ change: @Sendable (inout PlayerStatus) -> Void) {
        change(&player)
        idle.publish(.player)
    }

    // MARK: Player

    public func perform(_ action: ControlAction) async throws {
        if case .skipPlaying = action, player.state == .stopped { throw MPDError(.playerSync, "Not playing") }
        performed.append(action)
        switch action {
        case .play: try startPlaying(player.entryID ?? queue.first?.id)
        case let .playEntry(id): try startPlaying(id)
        case .pause: if player.state == .playing { setState(.paused) }
        case .resume: if player.state == .paused { setState(.playing) }
        case .togglePause: if player.state != .stopped { setState(player.state == .playing ? .paused : .playing) }
        case .playPause:
            if player.state == .stopped {
                try startPlaying(player.entryID ?? queue.first?.id)
            } else {
                setState(player.state == .playing ? .paused : .playing)
            }
        case .stop: setState(.stopped); player.elapsed = 0
        case .next: try skip(by: 1)
        case .previous, .previousEntry: try skip(by: -1)
        case let .skipPlaying(forward):
            try skip(by: forward ? 1 : -1)
            if player.state == .paused { setState(.playing) }
        case let .seek(seconds): try seek(to: seconds)
        case let .seekBy(seconds): try seek(to: player.elapsed + seconds)
        case let .seekEntry(id, seconds):
            if player.state == .stopped || player.entryID != id { try startPlaying(id) }
            try seek(to: seconds)
        case let .setVolume(volume): setVolume(volume)
        case let .changeVolume(delta): setVolume(player.volume + delta)
        case let .setRepeat(mode): player.repeatMode = mode; idle.publish(.options)
        case let .setSingle(on): player.single = on; player.singleOneshot = false; idle.publish(.options)
        case let .setReplayGain(mode): player.replayGain = mode; idle.publish(.options)
        case .loopSetA, .loopCycle: player.loopPendingA = heardFrame; idle.publish(.player)
        case .loopSetB:
            guard let start = player.loopPendingA else { throw MPDError(.argument, "set A first") }
            player.loop = LoopRegion(start: start, end: heardFrame)
            player.loopPendingA = nil
            idle.publish(.player)
        case .loopClear: player.loop = nil; player.loopPendingA = nil; idle.publish(.player)
        case let .loopLast(seconds):
            if player.loop != nil {
                player.loop = nil
            } else {
                player.loop = LoopRegion(start: max(0, heardFrame - Int64(seconds * 44_100)), end: heardFrame)
            }
            idle.publish(.player)
        case let .loopLastBars(bars, beatsPerBar):
            guard let bpm = player.beat?.bpm else { throw MPDError(.argument, "no beat known for this track") }
            player.loop = player.loop != nil ? nil : LoopRegion(
                start: max(0, heardFrame - Int64(Double(bars * beatsPerBar) * 60 / bpm * 44_100)), end: heardFrame)
            idle.publish(.player)
        case .tapTempo: idle.publish(.player)
        case .playSection, .setSections: throw MPDError(.argument, "sections come from the daemon's practice store")
        case let .setBeat(beat): player.beat = beat; idle.publish(.player)
        case let .metronome(plan): player.metronome = plan; idle.publish(.options)
        case .toggleMetronome:
            player.metronome = player.metronome == nil ? MetronomePlan() : nil
            idle.publish(.options)
        case let .setTempo(percent): player.tempoPercent = percent; idle.publish(.player)
        case let .changeTempo(delta): player.tempoPercent = min(150, max(50, player.tempoPercent + delta)); idle.publish(.player)
        case let .setTranspose(cents): player.transposeCents = cents; idle.publish(.player)
        case let .changeTranspose(delta): player.transposeCents += delta; idle.publish(.player)
        case let .speedTrainer(plan):
            if let plan { player.tempoPercent = plan.startPercent }
            player.trainer = plan
            idle.publish(.player)
        case .trainerAgain:
            guard player.trainer != nil else { throw MPDError.badArgument("no step trainer is running") }
        case .toggleTrainer:
            player.trainer = player.trainer == nil ? .standard : nil
            idle.publish(.player)
        case .countIn, .setAnnouncements: idle.publish(.options)
        case .announce: break
        case .practiceMemory: throw MPDError(.argument, "practice memory comes from the daemon's recorder only")
        case let .loopNudge(endpoint, milliseconds):
            guard var loop = player.loop else { throw MPDError(.argument, "no loop") }
            let delta = Int64(milliseconds) * Int64(player.sourceSampleRate) / 1000
            if endpoint == .a { loop.start += delta } else { loop.end += delta }
            player.loop = loop
            idle.publish(.player)
        case let .setLoop(start, end, count):
            let rate = Double(player.sourceSampleRate)
            player.loop = LoopRegion(start: Int64(start * rate), end: Int64(end * rate), repeatCount: count)
            idle.publish(.player)
        }
    }

    var heardFrame: Int64 { Int64(player.elapsed * Double(player.sourceSampleRate)) }

    func startPlaying(_ id: EntryID?) throws {
        guard let id else { return }
        guard let item = queue.first(where: { $0.id == id }) else { throw MPDError.noSuchSong() }
        player.entryID = id
        player.path = item.uri
        player.elapsed = 0
        player.duration = song(uri: item.uri)?.duration
        setState(.playing)
    }

    func setState(_ state: PlayState) {
        player.state = state
        idle.publish(.player)
    }

    /// `.next`/`.previous` as Fermata's player does them: a paused transport stays paused on the new entry (the
    /// protocol's `next`/`previous` resume it, as MPD plays).
    func skip(by step: Int) throws {
        guard let id = player.entryID, let index = queue.firstIndex(where: { $0.id == id }) else { return }
        var target = index + step
        if player.repeatMode == .queue, !queue.isEmpty { target = (target + queue.count) % queue.count }
        guard queue.indices.contains(target) else { return setState(.stopped) }
        let wasPaused = player.state == .paused
        try startPlaying(queue[target].id)
        if wasPaused { setState(.paused) }
    }

    func seek(to seconds: Double) throws {
        guard player.entryID != nil else { throw MPDError(.playerSync, "Not playing") }
        player.elapsed = max(0, min(seconds, player.duration ?? seconds))
        if player.state == .stopped { player.state = .playing }
        idle.publish(.player)
    }

    func setVolume(_ volume: Int) {
        player.volume = max(0, min(100, volume))
        idle.publish(.mixer)
    }

    public func setOption(_ option: PlayerOption) async throws {
        switch option {
        case let .random(on): random = on
        case let .consume(on): consume = on; consumeOneshot = false
        case .consumeOneshot: consume = true; consumeOneshot = true
        case .singleOneshot:
            if player.repeatMode == .queue { player.repeatMode = .track }
            player.single = true
            player.singleOneshot = true
        case let .crossfade(seconds): crossfade = seconds
        case .clearError: player.lastError = nil; idle.publish(.player); return
        }
        idle.publish(.options)
    }

    public func status() async throws -> MPDStatusInfo {
        let position = player.entryID.flatMap { id in queue.firstIndex { $0.id == id } }
        var next: Int?
        if let position, !player.single || player.repeatMode == .track {
            next = player.repeatMode == .track ? position : position + 1
            if next == queue.count { next = player.repeatMode == .queue ? 0 : nil }
        }
        let format = player.path.flatMap { song(uri: $0)?.format }
        var info = MPDStatusInfo(
            player: player, random: random, consume: consume, crossfadeSeconds: crossfade, queueVersion: queueVersion,
            queueLength: queue.count, songPosition: position, nextSongPosition: next,
            nextSongID: next.map { queue[$0].id },
            bitrate: player.state == .stopped ? 0 : 1_000, audioFormat: format, updatingJob: nil
        )
        info.consumeOneshot = consumeOneshot
        info.sleepSeconds = sleepSeconds
        return info
    }

    public func stats() async throws -> MPDStats {
        MPDStats(
            artists: Set(library.flatMap { $0.values(.artist) }).count,
            albums: Set(library.flatMap { $0.values(.album) }).count,
            songs: library.count, uptime: 100, playtime: 0,
            databasePlaytime: Int64(library.compactMap(\.duration).reduce(0, +)), databaseUpdated: 1_700_000_000
        )
    }

    func song(uri: String) -> SongInfo? { library.first { $0.uri == uri } }
}
