import AudioCore
import AudioOutput
import Controls
import DatabaseFile
import Engine
import FermataConfig
import FermataCore
import Foundation
import Library
import Logging
import MPDProtocol
import MPDServer
import NIOCore
import Player
import Practice
import Recording
import ServiceLifecycle
import StateDatabase
import Streams
import WebRemote

/// The daemon put together: opens the state database, starts audio at the saved position before anything else is
/// loaded, then loads the rest of the queue and starts the control services; runs until SIGTERM/SIGINT.
/// Threads: `run` is called once, from `fermatad`'s main task.
public struct DaemonRuntime: Sendable {
    let config: DaemonConfig
    /// The board profile for the buttons and encoder (resolved with the configuration).
    let controls: ControlsSetup
    let logger: Logger
    /// When the process started (for the "audio after N ms" log line).
    let started: ContinuousClock.Instant

    public init(config: DaemonConfig, controls: ControlsSetup, logger: Logger, started: ContinuousClock.Instant) {
        self.config = config
        self.controls = controls
        self.logger = logger
        self.started = started
    }

    public func run() async throws {
        // First of all: a second fermatad on this state directory stops here, before it touches the database or
        // the socket of the one already running.
        let lock = try StateDirectoryLock.acquire(in: config.stateDirectory)
        if case let .unavailable(reason) = lock {
            logger.warning("state directory not locked against a second fermatad (\(reason))")
        }
        defer { withExtendedLifetime(lock) {} }
        let database = try StateDatabaseOpener.open(stateDirectory: config.stateDirectory, schema: .fermata, logger: logger)
        let store = StateStore(database: database, logger: logger)
        let head = try await store.loadHead()
        logger.debug("state loaded after \(ContinuousClock.now - started)")
        var outputSettings = config
        outputSettings.output = outputName
        let made = OutputSet.make(config: outputSettings, saved: await store.loadOutputStates(), logger: logger)
        let engine = PlaybackEngine(sink: made.sink, config: engineConfig(), taps: made.taps)
        let practiceStore = PracticeStore(database: database)
        let player = Player(engine: engine, musicDirectory: config.musicDirectory, persistence: store,
                            sectionSource: { uri in (try? await practiceStore.sections(path: uri)) ?? [] },
                            logger: Logger(label: "fermata.player"))
        let policy = config.resume
        // A music drive mounted late at boot: serve the saved queue stopped and start it when the directory appears.
        let musicPath = config.musicDirectory
        let music = await BlockingWork.run { MusicDirectoryState.check(musicPath) }
        // A network stream needs no music directory: a radio left playing comes back playing however the drive is.
        let current = head.snapshot?.currentEntry.flatMap { id in head.entries.first { $0.id == id } }
        let streamResumes = current.map { PlayableItem.isLive($0.uri) } ?? false
        if music != .present {
            logger.warning("music directory \(musicPath) \(music.words) (not mounted yet?): the queue is kept, and playback starts when it appears")
        }
        await player.restore(snapshot: head.snapshot ?? firstStartSnapshot(), entries: head.entries,
                             policy: music == .present || streamResumes ? policy : .off)
        // Watched only when the restore plays: the watch polls every 2 ms, for up to 5 s when no frame comes.
        let resumed = await player.status().state == .playing ? Task { await reportFirstFrame(engine) } : nil
        defer { resumed?.cancel() }
        let saved = head.snapshot ?? firstStartSnapshot()
        // The rest of the queue is read while the control port starts: audio already plays from the head, and
        // commands wait for the whole queue (`FermataBackend.ready`), so no client sees it half restored.
        let destination = made.destination
        let restoring = Task { [logger, started] in
            do {
                let rest = try await store.loadQueue()
                await player.restoreQueue(entries: rest.entries, version: saved.queueVersion, nextID: saved.nextEntryID,
                                          shuffledOrder: rest.shuffledOrder)
                let summary = "\(FermataVersion.text) (fermatad) ready after \(ContinuousClock.now - started): audio to \(destination); "
                    + "\(rest.entries.count) queue entries; state in \(database.path); output thread \(engine.schedulingNote)"
                logger.notice("\(summary)")
            } catch {
                logger.error("cannot read the saved queue back (\(error)): serving with its current and next entries only")
            }
        }
        defer { restoring.cancel() }
        let library = Library(database: database, musicDirectory: config.musicDirectory)
        let playlists = PlaylistStore(directory: config.stateDirectory + "/playlists")
        let practice = PracticeRecorder(player: player, store: practiceStore,
                                        remember: config.practiceRemember)
        // The restored entry keeps the loop and tempo saved with the player state (newer than its practice memory).
        await practice.adoptRestored(entry: saved.currentEntry)
        let backend = FermataBackend(player: player, library: library, playlists: playlists, outputs: made.outputs,
                                     store: store, logger: logger, practice: practice, restoring: restoring)
        await player.setVolumeFloor(config.volumeMin)
        if config.volumeStart >= 0 { try? await player.perform(.setVolume(config.volumeStart)) }
        let powerOff = PowerOffRequest(path: config.poweroffRequest)
        let timers = makeTimers(backend: backend, player: player, database: database, powerOff: powerOff)
        backend.timers.withLock { $0 = timers }
        let cards = CardService(config: config.cards, volumeMax: config.volumeMax, backend: backend, player: player,
                                store: store, logger: Logger(label: "fermata.cards"))
        backend.cardService.withLock { $0 = cards }
        await cards.start()
        let controlsLogger = Logger(label: "fermata.controls")
        // The actions that are not the player's, from a button or a card: the machine's, the practice store's, the
        // timers'.
        let otherActions: @Sendable (KeyAction) async -> Void = { action in
            switch action {
            case .shutdown: powerOff.post(logger: controlsLogger)
            case .sectionSave:
                do {
                    _ = try await practice.editSections(.saveLoop(name: nil))
                } catch {
                    controlsLogger.info("controls: section-save: \(error)")
                }
            case let .sleep(minutes): await timers.sleep.set(seconds: minutes * 60)
            case .sleepOff: await timers.sleep.cancel()
            default: break
            }
        }
        await cards.handleOtherActions(with: otherActions)
        // One throttle for every password: a guesser gains nothing by moving between the MPD port and the web page.
        let throttle = PasswordThrottle(first: .milliseconds(100), cap: .seconds(5))
        // The passwords are kept whether or not the page is served, so `fermata web password` works before
        // web.listen is opened.
        let access = WebAccess(store: WebAccessStorage(database: database), throttle: throttle)
        backend.webAccess.withLock { $0 = access }
        let web = config.webListen.map { listen in
            let webBackend = FermataWebBackend(backend: backend, library: library, config: config, cards: cards)
            let events = WebEvents(backend: webBackend)
            return (listen, access, webBackend, events)
        }
        if let events = web?.3 {
            await cards.reportReads { id, known, learned in events.publish(.card(id: id, known: known, learned: learned)) }
            await practice.reportWrites { events.publish(.practice) }
        }
        // Made once the page's event hub is: a recording change is `player` to idle clients and `recording` to pages.
        let recording = makeRecording(engine: engine, player: player, database: database, backend: backend,
                                      events: web?.3)
        backend.recording.withLock { $0 = recording }
        let notifier = SystemdNotifier()
        logger.info("\(controls.note)")
        for warning in controls.profile?.warnings ?? [] { logger.warning("controls: \(warning)") }
        let server = MPDServer(configuration: try serverConfiguration(), backend: backend, throttle: throttle,
                               logger: Logger(label: "fermata.mpd"))
        var services: [any Service] = [
            PlayerService(player: player, checkpointInterval: .milliseconds(Int(config.checkpointInterval * 1000)),
                          notifier: notifier, store: store, logger: logger),
            BackgroundTasks(backend: backend, library: library, scanOnStart: config.scanOnStart, logger: logger),
            server,
        ]
        if let (listen, access, webBackend, events) = web {
            services.append(WebServer(settings: .init(host: listen.host, port: listen.port,
                                                      maxConnections: config.webMaxConnections),
                                      backend: webBackend, access: access, events: events,
                                      logger: Logger(label: "fermata.web"), onListening: { [logger] port in
                                          logger.notice("web remote on http://\(listen.host):\(port)/")
                                      }))
        }
        if let profile = controls.profile {
            services.append(GPIOInputService(config: profile.controls, player: player, logger: controlsLogger,
                                             extraActions: otherActions,
                                             cards: { id, input in
                                                 await timers.idle.activity()
                                                 await cards.read(id, input: input)
                                             },
                                             observer: { event in
                                                 await timers.idle.activity()  // a button that changed nothing too
                                                 guard let events = web?.3, let signal = event.webSignal else { return }
                                                 events.publish(signal)
                                             }))
        }
        services.append(TimersService(timers: timers, changes: backend.idle))
        services.append(PracticeService(recorder: practice, changes: backend.idle))
        services.append(recording)
        if music != .present {
            services.append(MusicDirectoryWatch(path: musicPath, player: player, library: library, saved: saved,
                                                policy: policy, scanOnStart: config.scanOnStart, logger: logger))
        }
        // READY=1 once the control port and socket accept connections, not before: a unit ordered after this one
        // (or `systemctl start fermata && mpc play`) talks MPD at once. A bind that fails stops the group instead.
        let announcing = Task {
            guard (try? await server.listeningAddresses()) != nil else { return }
            notifier.ready(status: "ready")
        }
        defer { announcing.cancel() }
        let group = ServiceGroup(configuration: .init(services: services.map { .init(service: $0) },
                                                      gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
        notifier.stopping()
    }

    /// The sleep timer, the alarms and idle power-off, told of their settings; clients hear of their changes as
    /// `options` (the web page's status follows it).
    func makeTimers(backend: FermataBackend, player: Player, database: FermataDatabase, powerOff: PowerOffRequest)
        -> HouseholdTimers {
        let logger = Logger(label: "fermata.timers")
        let ticks = TimerTicks()
        let announce: @Sendable () -> Void = { backend.idle.publish(.options) }
        let sleep = SleepService(fadeSeconds: config.sleepFadeSeconds, endAction: config.sleepAction, player: player,
                                 logger: logger, announce: announce, wake: { ticks.ring() })
        let alarms = AlarmService(storage: AlarmStorage(database: database),
                                  firing: AlarmFiring(backend: backend, player: player, sleep: sleep, logger: logger),
                                  logger: logger, announce: announce)
        let idle = IdleWatch(minutes: config.idlePoweroffMinutes, request: powerOff, player: player, logger: logger)
        return HouseholdTimers(sleep: sleep, alarms: alarms, idle: idle, ticks: ticks)
    }

    /// Recording yourself: the takes in the state folder's `takes`, the round trips measured in the database; clients
    /// hear of a change as `player` (the page's status follows it), and open pages as a `recording` event.
    func makeRecording(engine: PlaybackEngine, player: Player, database: FermataDatabase, backend: FermataBackend,
                       events: WebEvents? = nil) -> RecordingService {
        RecordingService(device: config.recordDevice, outputDevice: outputName, budgetMB: config.recordBudgetMB,
                         engine: engine, player: player,
                         takes: TakeStore(database: database, folder: TakeFolder(stateDirectory: config.stateDirectory)),
                         latencies: LatencyStore(database: database), logger: Logger(label: "fermata.record"),
                         realtimePriority: config.realtimePriority, announce: {
                             backend.idle.publish(.player)
                             events?.publish(.recording)
                         })
    }

    /// The ALSA device: the configured one, or the board profile's when the configuration leaves it at the default.
    var outputName: String {
        guard config.origins["audio.output"] == nil, let device = controls.profile?.alsaDevice else { return config.output }
        return device
    }

    /// Logs when the first audio frame reached the device after a resume (the start-up figure the benchmark reads).
    func reportFirstFrame(_ engine: PlaybackEngine) async {
        for _ in 0..<2500 where !Task.isCancelled {
            if let nanoseconds = engine.firstFrameMonotonicNanoseconds {
                let sinceStart = ContinuousClock.now - started
                logger.notice("first audio frame written \(sinceStart) after start (monotonic_ns=\(nanoseconds))")
                return
            }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// The control port's settings from the `[mpd]` section.
    func serverConfiguration() throws -> MPDServerConfiguration {
        // Checked when the configuration was read (`ListenAddress.problem`); empty means no TCP.
        let tcp = config.listen.map { MPDServerConfiguration.TCPEndpoint(host: $0.host, port: $0.port) }
        let socket = config.socketPath.isEmpty ? nil : config.socketPath
        if let socket {
            try? FileManager.default.createDirectory(atPath: (socket as NSString).deletingLastPathComponent,
                                                     withIntermediateDirectories: true)
        }
        let session = SessionConfig(passwords: config.password.isEmpty ? [:] : [config.password: .all],
                                    defaultPermissions: config.defaultPermissions)
        return MPDServerConfiguration(tcp: tcp, unixSocketPath: socket, maxConnections: config.maxConnections,
                                      connectionTimeout: .seconds(Int64(config.connectionTimeout)), session: session)
    }

    func engineConfig() -> EngineConfig {
        var engine = EngineConfig()
        engine.periodMilliseconds = config.periodMilliseconds
        engine.periods = config.periods
        engine.decodeAheadMilliseconds = config.decodeAheadMilliseconds
        engine.streams = StreamSettings(bufferMilliseconds: config.streamBufferMilliseconds,
                                        maxReconnects: config.streamMaxReconnects,
                                        connectTimeoutMilliseconds: config.streamConnectTimeoutMilliseconds,
                                        stallSeconds: config.streamStallSeconds)
        engine.loopCrossfadeMilliseconds = config.loopCrossfadeMilliseconds
        engine.realtimePriority = config.realtimePriority > 0 ? Int32(config.realtimePriority) : nil
        switch config.format {
        case .fixed: engine.formatPolicy = .fixed(nil)
        case .follow: engine.formatPolicy = .follow(settleMilliseconds: config.settleMilliseconds)
        case let .exact(format): engine.formatPolicy = .fixed(format)
        }
        return engine
    }

    /// Modes for a first start, from the configuration.
    func firstStartSnapshot() -> PlayerSnapshot {
        var snapshot = PlayerSnapshot()
        snapshot.volume = config.volume
        snapshot.repeatMode = config.repeatMode
        snapshot.replayGain = config.replayGain
        return snapshot
    }
}
