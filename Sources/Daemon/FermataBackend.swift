import Decoders
import Engine
import FermataCore
import Foundation
import Library
import Logging
import MPDProtocol
import Player
import Practice
import StateDatabase
import Streams
import Synchronization
import WebRemote

/// The daemon's answer to every MPD command: the player actor for transport and the queue, the library for the
/// database and stickers, the playlist store for stored playlists. Publishes each change on `idle`.
/// Threads: Sendable; handlers call it from any task, concurrently.
public final class FermataBackend: MPDBackend {
    public let idle = IdleBroadcaster()
    public let capabilities: BackendCapabilities
    let player: Player
    let library: Library
    let playlists: PlaylistStore
    let musicGuard: MusicPathGuard
    let outputs: OutputSet
    let store: StateStore?
    /// When the backend started, on the monotonic clock (a Pi steps its wall clock at boot: `uptime` must not jump).
    let started = ContinuousClock.now
    let logger: Logger
    /// Songs by URI (library lookups for the queue), dropped after each scan.
    let songCache = Mutex([String: SongInfo]())
    /// The last `listall`/`listallinfo` answer, kept while the library is unchanged.
    public let listingCache: ListingCache?
    /// The newest scan job asked for: `status` reports it as `updating_db` from the `update` command on, like MPD.
    let requestedScan = Mutex(0)
    /// Practice statistics (`practice`); nil when not kept.
    let practice: PracticeRecorder?
    let restoring: Task<Void, Never>?
    /// What the cards do (`cards`, `cardassign`, …): set once at start, after the backend it needs exists.
    let cardService = Mutex<CardService?>(nil)
    /// The web remote's sessions and passwords (`webpassword`): set once at start when the web remote runs.
    let webAccess = Mutex<WebAccess?>(nil)
    /// The sleep timer, the alarms and idle power-off (`sleep_timer`, `alarms`, …): set once at start.
    let timers = Mutex<HouseholdTimers?>(nil)
    /// Recording yourself (`record`, `takes`, …): set once at start.
    let recording = Mutex<RecordingService?>(nil)

    /// - Parameter store: where `enableoutput`/`disableoutput` are saved (nil: not saved).
    /// `restoring`: the reading back of the saved queue after a restart, which commands wait for (`ready`).
    public init(player: Player, library: Library, playlists: PlaylistStore, outputs: OutputSet, store: StateStore?,
                logger: Logger, practice: PracticeRecorder? = nil, restoring: Task<Void, Never>? = nil) {
        self.restoring = restoring
        self.player = player
        self.practice = practice
        self.library = library
        listingCache = ListingCache { library.contentVersion }
        self.playlists = playlists
        self.outputs = outputs
        self.store = store
        self.logger = logger
        musicGuard = MusicPathGuard(musicDirectory: library.musicDirectory)
        capabilities = BackendCapabilities(
            decoders: DecoderRegistry.formats.map {
                DecoderPluginInfo(name: $0.pluginName, suffixes: $0.extensions, mimeTypes: $0.mimeTypes)
            },
            urlHandlers: StreamURL.schemes, stickers: true)
    }

    /// Forwards player changes and scan progress to `idle` until cancelled; keeps the library's in-memory index for
    /// queue adds current (read shortly after start and after each scan, not by the first `add` after them).
    public func forwardChanges() async {
        await withDiscardingTaskGroup { group in
            group.addTask {
                // Not during the first second: a restart's resume and first answers come first (20,000 tracks take
                // about 15 ms to read).
                try? await Task.sleep(for: .seconds(1))
                await self.library.warmQueueIndex()
            }
            group.addTask {
                for await change in self.player.changes {
                    switch change {
                    case .player: self.idle.publish(.player)
                    case .queue: self.idle.publish(.playlist)
                    case .mixer: self.idle.publish(.mixer)
                    case .options: self.idle.publish(.options)
                    }
                }
            }
            group.addTask {
                var wasRunning = false
                for await progress in self.library.progressUpdates() {
                    let running = progress.isRunning
                    if running != wasRunning {
                        self.idle.publish(running ? .update : [.update, .database])
                        if !running {
                            self.songCache.withLock { $0.removeAll() }
                            await self.library.warmQueueIndex()
                        }
                    }
                    wasRunning = running
                }
            }
        }
    }

    // MARK: player

    public func perform(_ action: ControlAction) async throws {
        do {
            try await player.perform(action)
        } catch let error as Player.ActionError {
            throw Self.mpdError(error)
        }
    }

    public func setOption(_ option: PlayerOption) async throws {
        switch option {
        case let .random(on): await player.setShuffled(on)
        case let .consume(on): await player.setConsume(on)
        case .consumeOneshot: await player.setConsume(true, oneshot: true)
        case .singleOneshot: await player.setSingleOneshot()
        case let .crossfade(seconds):
            guard seconds == 0 else { throw MPDError(.argument, "Fermata plays gaplessly; crossfade is always 0") }
        case .clearError: await player.clearError()
        }
    }

    public func status() async throws -> MPDStatusInfo {
        let reading = await player.view()
        let status = reading.status, view = reading.queue
        var info = MPDStatusInfo(player: status, random: view.queue.shuffledOrder != nil, consume: view.consume,
                                 queueVersion: UInt32(truncatingIfNeeded: view.queue.version),
                                 queueLength: view.queue.count)
        info.consumeOneshot = view.consumeOneshot
        let playing = status.entryID ?? view.current
        info.songPosition = playing.flatMap(view.queue.index(of:))
        if let next = view.upcoming {
            info.nextSongID = next
            info.nextSongPosition = view.queue.index(of: next)
        }
        if let playing, let entry = view.queue.entry(id: playing), let song = await song(uri: entry.uri) {
            info.player.duration = song.duration
            info.audioFormat = song.format
        }
        let progress = library.progress
        let requested = requestedScan.withLock { $0 }
        if progress.isRunning || (progress.job < requested) { info.updatingJob = max(progress.job, requested) }
        info.sleepSeconds = await timers.withLock({ $0 })?.sleep.remaining()
        return info
    }

    public func stats() async throws -> MPDStats {
        let stats = try await library.stats()
        return MPDStats(artists: stats.artists, albums: stats.albums, songs: stats.songs,
                        uptime: (ContinuousClock.now - started).components.seconds,
                        playtime: Int64(player.engine.framesWritten / max(1, player.engine.position().deviceFormat?.sampleRate ?? 44_100)),
                        databasePlaytime: Int64(stats.playtime),
                        databaseUpdated: Int64(stats.lastScan?.timeIntervalSince1970 ?? 0))
    }

    /// Commands wait until the saved queue is back (a restart opens the control port while it is read).
    public func ready() async { await restoring?.value }

    // MARK: command lists

    /// The list's queue and state writes are committed once, when it ends (`DeferredWrites`), before its answer.
    public func commandList<T>(_ body: () async -> T) async -> T {
        let result = await DeferredWrites.$active.withValue(true) { await body() }
        await store?.flushDeferred()
        return result
    }

    // MARK: outputs

    public func outputs() async throws -> [OutputInfo] { outputs.infos() }

    /// Switching the primary output off keeps playback paced (a paced null sink stands in) so the FIFO and command
    /// outputs go on; the new state is saved before the answer.
    public func setOutput(_ id: Int, enabled: Bool?) async throws {
        guard let (name, now) = outputs.set(id, enabled: enabled) else {
            throw MPDError(.noExist, "No such audio output")
        }
        logger.notice("output \(name) \(now ? "enabled" : "disabled")")
        await store?.saveOutputState(name: name, enabled: now)
        idle.publish(.output)
    }

    // MARK: helpers

    /// The library's song for `uri`, cached.
    func song(uri: String) async -> SongInfo? {
        if let cached = songCache.withLock({ $0[uri] }) { return cached }
        guard let track = try? await library.track(path: uri) else { return nil }
        let song = SongInfo(track)
        songCache.withLock { cache in
            if cache.count > 20_000 { cache.removeAll() }
            cache[uri] = song
        }
        return song
    }

    static func mpdError(_ error: Player.ActionError) -> MPDError {
        switch error {
        case .noSuchEntry: .noSuchSong()
        case .emptyQueue: MPDError(.playerSync, "The queue is empty")
        case .notPlaying: MPDError(.playerSync, "Not playing")
        case .queueFull: MPDError(.playlistMax, "Playlist is too large")  // MPD's words and code
        case .currentEntryLocked: MPDError(.permission, "Cannot edit the current song")  // MPD's PlaylistResult::DENIED
        case .notSeekable: MPDError(.unknown, "Not seekable")  // MPD's DecoderControl::Seek on a stream
        default: MPDError(.argument, error.description)
        }
    }
}
