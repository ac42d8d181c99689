import AudioCore
import Decoders
import Engine
import FermataCore
import Logging

/// The player: the queue, the modes and the loop region on top of a `PlaybackEngine`. Every front end drives it
/// through `PlayerControl` and the queue methods; it writes what must survive a power cut through `PlayerPersistence`.
///
/// Threads: an actor; call from any task. `run()` must be running (it consumes the engine's events).
public actor Player: PlayerControl {
    public nonisolated let engine: PlaybackEngine
    /// Changes for MPD `idle` and displays (one consumer).
    public nonisolated let changes: AsyncStream<PlayerChange>
    let changeSink: AsyncStream<PlayerChange>.Continuation
    let logger: Logger
    let musicDirectory: String?
    let persistence: (any PlayerPersistence)?
    public internal(set) var queue = PlayQueue()
    var repeatMode = RepeatMode.off
    var single = false
    /// Playback speed in percent (100: untouched).
    var tempoPercent = 100
    /// The count-in before playback starts, if any.
    var countIn: CountInPlan?
    /// Announcements over the music (ducked) rather than before it.
    var announceDucking = true
    /// Announcement failures already logged (each reason once).
    var announcementProblems: Set<String> = []
    /// Whether each new track is announced.
    var announceTrackChanges = false
    let speaker = SpeechRenderer()
    var consume = false
    /// MPD 0.24's `consume oneshot`: consume switches itself off once one entry has been consumed. Not saved: after
    /// a restart consume is off rather than on for ever.
    var consumeOneshot = false
    var volume = 100
    /// The output is switched off (MPD `disableoutput`): silent, the stream keeps its place.
    var muted = false
    var replayGainMode = ReplayGainMode.off
    var stopped = true
    var loop: EntryLoop?
    /// A set while B is not yet: where A is.
    var loopPendingA: EntryFrame?
    var lastError: String?
    /// Entries that could not be played, with the reason (typed decoder error as text).
    public internal(set) var failures: [EntryID: String] = [:]
    /// The entry the listener hears (or heard last).
    var current: EntryID?
    var consecutiveFailures = 0
    /// The last start asked of the engine, reported by `status` until it is heard (a `next` or `seek` shows at once),
    /// with its entry's source rate when known (seconds ↔ frames for a seek made before the start is heard).
    var requestedStart: RequestedStart?
    var randomGenerator = SystemRandomNumberGenerator()
    private var endWaiters: [CheckedContinuation<Void, Never>] = []
    private var playingWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiterID = 0
    private var lastCheckpoint: EntryFrame?

    public init(engine: PlaybackEngine, musicDirectory: String? = nil, persistence: (any PlayerPersistence)? = nil,
                logger: Logger = Logger(label: "fermata.player")) {
        self.engine = engine
        self.musicDirectory = musicDirectory
        self.persistence = persistence
        self.logger = logger
        (changes, changeSink) = AsyncStream<PlayerChange>.makeStream(bufferingPolicy: .bufferingNewest(64))
    }

    /// Consumes engine events until the engine shuts down.
    public func run() async {
        for await event in engine.events { await handle(event) }
        changeSink.finish()
    }

    /// Suspends until the stream ends (the queue played out or `stop`).
    public func waitUntilStopped() async {
        if stopped { return }
        await withCheckedContinuation { endWaiters.append($0) }
    }

    public func status() -> PlayerStatus {
        let heard = currentPosition()
        var status = PlayerStatus()
        status.state = stopped ? .stopped : engine.isPauseRequested ? .paused : .playing
        status.entryID = heard.entryID ?? current
        status.path = status.entryID.flatMap { queue.entry(id: $0)?.uri }
        status.elapsedFrames = stopped ? 0 : heard.sourceFrame
        status.elapsed = stopped ? 0 : heard.seconds
        status.sourceSampleRate = heard.sourceRate
        status.volume = volume
        status.repeatMode = repeatMode
        status.single = single
        status.tempoPercent = tempoPercent
        status.loop = loop.flatMap { $0.entry == status.entryID ? $0.region : nil }
        status.loopPendingA = loopPendingA?.frame
        status.replayGain = replayGainMode
        status.outputFormat = heard.deviceFormat?.description
        status.lastError = heard.waitingForDevice ? "waiting for the audio device" : lastError
        return status
    }

    /// Modes MPD reports that `PlayerStatus` does not carry.
    public var isConsuming: Bool { consume }
    public var isShuffled: Bool { queue.shuffledOrder != nil }

    /// The entry that will play after the current one, under the current modes.
    public func upcomingEntry() -> QueueEntry? {
        guard let current else { return nil }
        return successor(of: current, afterFailure: false).flatMap { queue.entry(id: $0.entryID) }
    }

    // MARK: engine events

    private func handle(_ event: EngineEvent) async {
        switch event {
        case let .decodingStarted(entry):
            let next = successor(of: entry, afterFailure: false)
            if announceTrackChanges, let next, let queued = queue.entry(id: next.entryID) {
                // Rendered before the decoder learns what follows, so it has the words when it gets there.
                if let speech = await speak(await trackTitle(queued)) {
                    engine.prepareTrackAnnouncement(next.entryID, speech, duck: announceDucking)
                }
            }
            engine.setUpcoming(after: entry, next)
        case let .trackFailed(entry, reason):
            logger.warning("skipping entry \(entry): \(reason)")
            lastError = reason
            failures[entry] = reason
            consecutiveFailures += 1
            let next = consecutiveFailures >= max(1, queue.count) ? nil : successor(of: entry, afterFailure: true)
            engine.setUpcoming(after: entry, next)
            if next == nil && engine.position().state == .stopped { await markStopped() }
        case let .trackAudible(entry, generation):
            // Heard before a newer start (a `next` sent while the old start's event was on its way): stale.
            if let asked = requestedStart, generation < asked.generation { return }
            let previous = current
            current = entry
            consecutiveFailures = 0
            if consume, let previous, previous != entry, queue.entry(id: previous) != nil {
                queue.remove(id: previous)
                if consumeOneshot {
                    consume = false
                    consumeOneshot = false
                    changeSink.yield(.options)
                }
                await persistence?.saveQueueEdit(.removed([previous]), queue: queue, snapshot: snapshot())
                changeSink.yield(.queue)
            }
            await persistence?.saveSnapshot(snapshot())
            changeSink.yield(.player)
        case .ended:
            await markStopped()
        case .deviceLost:
            logger.warning("audio device lost or absent; retrying every \(engine.config.deviceRetryMilliseconds) ms")
        case .deviceRestored:
            logger.notice("audio device back; resuming at the same position")
        case .underrun:
            logger.debug("output underrun recovered")
        case let .tempoChanged(tempo):
            tempoPercent = Int((tempo * 100).rounded())
            changeSink.yield(.player)
        }
    }

    func markStopped() async {
        stopped = true
        let waiters = endWaiters
        endWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
        await persistence?.saveSnapshot(snapshot())
        changeSink.yield(.player)
    }

    /// What plays after `entry` under the current modes.
    func successor(of entry: EntryID, afterFailure: Bool) -> PlayableItem? {
        if repeatMode == .track && !afterFailure { return queue.entry(id: entry).map(item) }
        if single && !afterFailure { return nil }
        return queue.entry(after: entry, wrap: repeatMode == .queue).map(item)
    }

    nonisolated func path(for uri: String) -> String {
        guard !uri.hasPrefix("/"), let musicDirectory else { return uri }
        return musicDirectory + "/" + uri
    }

    /// `auto` as MPD resolves it: track gain while the queue plays in random order (its songs come from anywhere),
    /// album gain in list order.
    var effectiveReplayGainMode: ReplayGainMode {
        guard replayGainMode == .auto else { return replayGainMode }
        return queue.shuffledOrder == nil ? .album : .track
    }

    func item(_ entry: QueueEntry) -> PlayableItem {
        let info = entry.replayGain
        let gain: Double? = switch effectiveReplayGainMode {
        case .off: nil
        case .track, .auto: info.trackGain.map { ReplayGainMath.linearGain(gainDB: $0, peak: info.trackPeak) }
        case .album: (info.albumGain ?? info.trackGain).map {
            ReplayGainMath.linearGain(gainDB: $0, peak: info.albumGain != nil ? info.albumPeak : info.trackPeak)
        }
        }
        return PlayableItem(entryID: entry.id, path: path(for: entry.uri), replayGain: gain ?? 1)
    }

    /// Starts `entry` at `frame`; `rate`: the entry's source rate where the caller knows it (a seek, a restore);
    /// `countingIn`: with the count-in (a start from play, not a seek or a skip).
    func begin(_ entry: QueueEntry, atFrame frame: Int64 = 0, rate: Int? = nil, countingIn: Bool = false) async {
        stopped = false
        let known = currentPosition()
        let rate = rate ?? (known.entryID == entry.id && known.sourceRate > 0 ? known.sourceRate : nil)
        current = entry.id
        consecutiveFailures = 0
        let generation = engine.start(item(entry), atFrame: frame, countIn: countingIn ? countIn : nil)
        requestedStart = RequestedStart(generation: generation, entry: entry.id, frame: frame, rate: rate)
        // A skip to an entry whose rate is not known yet: read it now, off the actor, so that a seek that follows
        // (a skip and a seek while paused) finds it instead of waiting for the file's header.
        if rate == nil { Task { await self.resolveRequestedRate() } }
        transportChanged()
        await persistence?.saveSnapshot(snapshot(frame: frame))
        changeSink.yield(.player)
    }

    /// What is heard now or, while a start just asked for is not audible yet (paused after a seek or a skip, or still
    /// filling the device), that start: the position `status`, `previous`, seeks, loop marks and snapshots act on, so
    /// that two presses in a row while paused build on each other instead of on a stale heard position.
    func currentPosition() -> EnginePosition {
        var heard = engine.position()
        if let asked = requestedStart, heard.generation < asked.generation {
            heard.entryID = asked.entry
            heard.sourceFrame = asked.frame
            if let rate = asked.rate { heard.sourceRate = rate }
        }
        return heard
    }

    /// Reads the source rate of a start asked for but not heard yet (a skip to another entry) from its file's header,
    /// once: a seek made before it is heard — a skip and a seek while paused — must convert seconds at that entry's
    /// rate, not at the rate of the entry heard before. Leaves it unknown when the file cannot be read. The header is
    /// read on `BlockingWork` (the actor does no file I/O); the answer is kept only if that start is still the one
    /// asked for.
    func resolveRequestedRate() async {
        guard let asked = requestedStart, asked.rate == nil, engine.position().generation < asked.generation,
              let entry = queue.entry(id: asked.entry) else { return }
        let file = path(for: entry.uri)
        let rate = await BlockingWork.run { (try? DecoderRegistry.open(path: file))?.format.sampleRate }
        if let rate, requestedStart?.generation == asked.generation { requestedStart?.rate = rate }
    }

    /// The persistent state now (the current position unless `frame` is given).
    func snapshot(frame: Int64? = nil) -> PlayerSnapshot {
        var s = PlayerSnapshot()
        let heard = currentPosition()
        s.transport = stopped ? .stopped : engine.isPauseRequested ? .paused : .playing
        s.currentEntry = current
        s.positionFrames = frame ?? (heard.entryID == current ? heard.sourceFrame : 0)
        s.sampleRate = heard.sourceRate
        s.volume = volume
        s.repeatMode = repeatMode
        s.single = single
        s.consume = consume && !consumeOneshot
        s.replayGain = replayGainMode
        s.loop = loop
        s.queueVersion = queue.version
        s.nextEntryID = queue.nextID
        return s
    }

    /// Writes the heard position (called every checkpoint interval while playing); skips a write that would repeat
    /// the last one (paused, or the device waiting).
    public func checkpoint() async {
        guard !stopped, let current else { return }
        let heard = engine.position()
        guard heard.entryID == current, heard.sourceRate > 0 else { return }
        if let last = lastCheckpoint, last.entry == current, last.frame == heard.sourceFrame { return }
        lastCheckpoint = EntryFrame(entry: current, frame: heard.sourceFrame)
        await persistence?.checkpoint(entry: current, frame: heard.sourceFrame, sampleRate: heard.sourceRate)
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

    /// Wakes `waitUntilPlaying` callers when the transport may have started.
    func transportChanged() {
        guard isPlaying, !playingWaiters.isEmpty else { return }
        let waiters = playingWaiters.values
        playingWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }

    /// Saves everything with the heard position, for a clean shutdown (SIGTERM): a restart resumes right here.
    public func saveForShutdown() async {
        await persistence?.saveSnapshot(snapshot())
    }

    /// Whether audio is playing now (not paused, not stopped).
    public var isPlaying: Bool { !stopped && !engine.isPauseRequested }
}
