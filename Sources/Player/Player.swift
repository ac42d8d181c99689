import AudioCore
import Decoders
import Engine
import FermataCore
import Logging

/// The player: the queue, the modes and the loop region on top of a `PlaybackEngine`. Every front end drives it
/// through `PlayerControl` and the queue methods; it writes what must survive a power cut through `PlayerPersistence`.
///
/// A thin driver around one `PlayerState` value: each command is one `reduce` step (`step`), whose effects it carries
/// out — the engine orders at once, in the same turn; then the one save, awaited before the command returns (the
/// client's `OK`); then the notifications. What a step needs from files (a rate, a title, rendered speech) is read
/// before it, off the actor, and handed to it in the command: nothing is read before an `await` and used after it.
///
/// Threads: an actor; call from any task. `run()` must be running (it consumes the engine's events).
public actor Player: PlayerControl {
    public nonisolated let engine: PlaybackEngine
    /// Changes for MPD `idle` and displays (one consumer).
    public nonisolated let changes: AsyncStream<PlayerChange>
    let changeSink: AsyncStream<PlayerChange>.Continuation
    let logger: Logger
    nonisolated let musicDirectory: String?
    let persistence: (any PlayerPersistence)?
    /// A track's sections from its practice memory, by URI (nil: none kept). The practice recorder gives the player the
    /// current entry's; this is read when a section step finds none for the entry it acts on.
    let sectionSource: SectionSource?
    let speaker = SpeechRenderer()

    private(set) var state: PlayerState
    /// Durable writes of the state, counted: a command writes once, and tests count it.
    public private(set) var durableWrites = 0
    /// Announcement failures already logged (each reason once).
    private var announcementProblems: Set<String> = []
    /// Output underruns since the start, and when one was last logged (a notice at most every 10 s, with the count).
    private var underruns = 0
    private var underrunLogged: ContinuousClock.Instant?
    private var endWaiters: [CheckedContinuation<Void, Never>] = []
    private var playingWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiterID = 0
    /// The read of the source rate of a start not heard yet (`resolveRate(of:)`), owned: a newer start cancels it,
    /// `view()` and the actions in seconds await it instead of reading the file again.
    private var rateRead: (generation: Int, task: Task<Void, Never>)?
    /// The entry a take is mixed over now (`setTakeMix`; nil: none): the engine lets the take go when the entry leaves
    /// the queue.
    public private(set) var mixedEntry: EntryID?

    /// Reads the sections of the track at a URI (empty: none, or the store could not be read).
    public typealias SectionSource = @Sendable (String) async -> [PracticeSection]

    public init(engine: PlaybackEngine, musicDirectory: String? = nil, persistence: (any PlayerPersistence)? = nil,
                sectionSource: SectionSource? = nil, logger: Logger = Logger(label: "fermata.player")) {
        self.engine = engine
        self.musicDirectory = musicDirectory
        self.persistence = persistence
        self.sectionSource = sectionSource
        self.logger = logger
        state = PlayerState(musicDirectory: musicDirectory)
        (changes, changeSink) = AsyncStream<PlayerChange>.makeStream(bufferingPolicy: .bufferingNewest(64))
    }

    // MARK: the step

    /// Applies one command: the reducer's step on the state, then its effects. Throws (changing nothing) what the
    /// reducer throws.
    @discardableResult
    func step(_ command: PlayerCommand) async throws -> PlayerEffects {
        let effects = try state.reduce(command, heard: engine.position())
        for order in effects.engine { send(order) }
        for warning in effects.warnings { logger.warning("\(warning)") }
        if let start = effects.resolveRateOf { readRate(of: start) }
        if let entry = mixedEntry, state.queue.entry(id: entry) == nil { setTakeMix(nil) }
        wakeWaiters()
        if let save = effects.save { await write(save) }
        for change in effects.changes { changeSink.yield(change) }
        return effects
    }

    /// Mixes `mix.sound` over each pass of entry `mix.entry` (nil: none), until that entry leaves the queue or another
    /// take replaces it. Set before the entry starts, the take sounds from its first frame.
    public func setTakeMix(_ mix: TakeMix?) {
        mixedEntry = mix?.entry
        engine.setTakeMix(mix)
    }

    private func send(_ order: EngineOrder) {
        switch order {
        case let .start(item, frame, countIn, generation):
            engine.start(item, atFrame: frame, countIn: countIn, generation: generation)
        case .stop: engine.stop()
        case let .setPaused(paused): engine.setPaused(paused)
        case let .setUpcoming(entry, item): engine.setUpcoming(after: entry, item)
        case let .setLoop(entry, region): engine.setLoop(entry: entry, region)
        case let .setGain(gain): engine.setGain(gain)
        case let .setPassCountIn(plan): engine.setPassCountIn(plan)
        case let .setTempo(tempo): engine.setTempo(tempo)
        case let .setPitch(semitones): engine.setPitch(semitones: semitones)
        case let .setMetronome(setting): engine.setMetronome(setting)
        case let .setTrainer(trainer): engine.setTrainer(trainer)
        case .trainerAgain: engine.trainerAgain()
        case let .prepareTrackAnnouncement(entry, speech, duck): engine.prepareTrackAnnouncement(entry, speech, duck: duck)
        }
    }

    /// The one place the player writes durably, so a command's writes can be counted (one per command).
    private func write(_ save: PlayerEffects.Save) async {
        durableWrites += 1
        switch save {
        case let .state(snapshot):
            await persistence?.save(snapshot, queue: nil, writeNumber: durableWrites)
        case let .stateAndQueue(snapshot, queue):
            await persistence?.save(snapshot, queue: queue, writeNumber: durableWrites)
        }
    }

    private func wakeWaiters() {
        if state.transport.isStopped, !endWaiters.isEmpty {
            let waiters = endWaiters
            endWaiters.removeAll()
            for waiter in waiters { waiter.resume() }
        }
        if state.transport.isPlaying, !playingWaiters.isEmpty {
            let waiters = playingWaiters.values
            playingWaiters.removeAll()
            for waiter in waiters { waiter.resume() }
        }
    }

    // MARK: engine events

    /// Consumes engine events until the engine shuts down.
    public func run() async {
        for await event in engine.events { await handle(event) }
        changeSink.finish()
    }

    private func handle(_ event: EngineEvent) async {
        switch event {
        case let .decodingStarted(entry):
            // Rendered before the step, so the decoder has the words when it gets there; the step checks they are
            // still for the entry that follows.
            var announcement: (entry: EntryID, speech: Speech)?
            if state.modes.announcements.onTrackChange,
               let next = state.modes.successor(of: entry, in: state.queue, afterFailure: false),
               let speech = await speak(await trackTitle(next)) {
                announcement = (next.id, speech)
            }
            await stepLogged(.decodingStarted(entry, announcement: announcement))
        case let .trackFailed(entry, reason): await stepLogged(.trackFailed(entry, reason: reason))
        case let .trackAudible(entry, generation): await stepLogged(.trackAudible(entry, generation: generation))
        case let .passHeard(entry, pass):
            // The tempo the trainer set for this pass is heard from here; displays are told (`status`'s loop_pass).
            await stepLogged(.passHeard(entry, pass: pass))
        case .ended: await stepLogged(.ended)
        case let .tempoChanged(tempo, entry, pass): await stepLogged(.tempoChanged(tempo, entry: entry, pass: pass))
        case let .streamName(entry, name): await stepLogged(.streamTags(entry, name: name, title: nil))
        case let .streamTitle(entry, title):
            logger.info("stream entry \(entry): \(title.isEmpty ? "(no title)" : title)")
            await stepLogged(.streamTags(entry, name: nil, title: title))
        case let .streamNotice(_, text): logger.notice("\(text)")
        case let .deviceLost(reason):
            logger.warning("audio device lost or absent (\(reason)); retrying every \(engine.config.deviceRetryMilliseconds) ms")
        case .deviceRestored:
            logger.notice("audio device back; resuming at the same position")
        case .underrun:
            underruns += 1
            let now = ContinuousClock.now
            if underrunLogged.map({ now - $0 >= .seconds(10) }) ?? true {
                underrunLogged = now
                logger.notice("output underrun recovered (\(underruns) since the start)")
            }
        }
    }

    // MARK: reads

    /// Suspends until the stream ends (the queue played out or `stop`).
    public func waitUntilStopped() async {
        if state.transport.isStopped { return }
        await withCheckedContinuation { endWaiters.append($0) }
    }

    /// Suspends until audio is playing (returns at once if it is) or the calling task is cancelled.
    public func waitUntilPlaying() async {
        if isPlaying || Task.isCancelled { return }
        let id = nextWaiterID
        nextWaiterID += 1
        await withTaskCancellationHandler {
            await withCheckedContinuation { playingWaiters[id] = $0 }
        } onCancel: {
            Task { await self.wakeWaiter(id) }
        }
    }

    private func wakeWaiter(_ id: Int) {
        playingWaiters.removeValue(forKey: id)?.resume()
    }

    public func status() -> PlayerStatus { state.status(engine.position()) }

    /// The queue as it is now.
    public var queue: PlayQueue { state.queue }
    /// Entries that could not be played, with the reason (typed decoder error as text).
    public var failures: [EntryID: String] { state.failures }
    /// Modes MPD reports that `PlayerStatus` does not carry.
    public var isConsuming: Bool { state.modes.consume != .off }
    public var isShuffled: Bool { state.queue.shuffledOrder != nil }
    /// Whether audio is playing now (not paused, not stopped).
    public var isPlaying: Bool { state.transport.isPlaying }
    /// The highest volume any path may set now.
    public var volumeCeiling: Int { state.modes.volumeCeiling }

    /// The entry that will play after the current one, under the current modes.
    public func upcomingEntry() -> QueueEntry? { state.upcomingEntry }

    /// What the engine is given to play `entry`, under the current modes.
    func item(_ entry: QueueEntry) -> PlayableItem { state.item(entry) }

    /// The queue, the current and the next entry, read in one actor turn.
    public func queueView() -> QueueView { state.queueView }

    // MARK: files, read off the actor

    nonisolated func path(for uri: String) -> String { PlayerState.path(for: uri, in: musicDirectory) }

    /// The source rate of a file from its header, read on `BlockingWork` (the actor does no file I/O); nil when it
    /// cannot be read.
    nonisolated func sampleRate(ofURI uri: String) async -> Int? {
        let file = path(for: uri)
        return await BlockingWork.run { (try? DecoderRegistry.open(path: file))?.format.sampleRate }
    }

    /// Reads the source rate of a start asked for but not heard yet (a skip to another entry), once: a seek made
    /// before it is heard — a skip and a seek while paused — must convert seconds at that entry's rate, not at the
    /// rate of the entry heard before. The step that takes it checks that start is still the one asked for.
    func resolveRequestedRate() async {
        guard let asked = state.transport.requestedStart, asked.rate == nil else { return }
        if let read = rateRead, read.generation == asked.generation { return await read.task.value }
        await resolveRate(of: asked)
    }

    /// Whether the start asked for last is not heard yet and its rate is unknown (`resolveRequestedRate` reads it).
    var requestedRateUnknown: Bool {
        guard let asked = state.transport.requestedStart else { return false }
        return asked.rate == nil && engine.position().generation < asked.generation
    }

    /// Starts the owned read of `start`'s rate (the step that began it asked for it), replacing an older one.
    private func readRate(of start: RequestedStart) {
        rateRead?.task.cancel()
        rateRead = (start.generation, Task { await self.resolveRate(of: start) })
    }

    private func resolveRate(of asked: RequestedStart) async {
        guard asked.rate == nil, engine.position().generation < asked.generation,
              let entry = state.queue.entry(id: asked.entry) else { return }
        guard let rate = await sampleRate(ofURI: entry.uri), !Task.isCancelled else { return }
        await stepLogged(.rateResolved(generation: asked.generation, rate: rate))
    }

    /// "Title, by Artist" from the file's tags (the file name without them), read on `BlockingWork`.
    nonisolated func trackTitle(_ entry: QueueEntry) async -> String {
        let file = path(for: entry.uri)
        let tags = await BlockingWork.run { try? TagReader.read(path: file) }
        let title = tags?.title ?? String(entry.uri.split(separator: "/").last ?? "")
        return tags?.artist.map { "\(title), by \($0)" } ?? title
    }

    /// The rendered words, or nil with the reason logged (each reason once).
    func speak(_ text: String) async -> Speech? {
        switch await speaker.render(text) {
        case let .success(speech): return speech
        case let .failure(error):
            if announcementProblems.insert(error.reason).inserted { logger.warning("announcement: \(error.reason)") }
            return nil
        }
    }

    // MARK: persistence

    /// Writes the heard position (called every checkpoint interval while playing); skips a write that would repeat
    /// the last one (paused, or the device waiting).
    public func checkpoint() async {
        guard let effects = try? await step(.checkpoint), let write = effects.checkpoint else { return }
        await persistence?.checkpoint(entry: write.entry, frame: write.frame, sampleRate: write.sampleRate,
                                      writeNumber: durableWrites)
    }

    /// Saves everything with the heard position, for a clean shutdown (SIGTERM): a restart resumes right here.
    public func saveForShutdown() async {
        await write(.state(state.snapshot(engine.position())))
    }
}
