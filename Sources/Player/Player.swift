import AudioCore
import Decoders
import Engine
import FermataCore
import Logging

/// The player: the queue, the modes and the loop region on top of a `PlaybackEngine`. Every front end drives it
/// through `PlayerControl` and the queue methods; it writes what must survive a power cut through `PlayerPersistence`.
///
/// Its state is four values, each changed only in this file, each through one method that also tells the engine:
/// `transport` (`begin`, `stop`, `setPaused`, `moveCursor`), `modes` (`updateModes`), `loopMarks` (`setLoopMarks`) and
/// `queue` (`editQueue`). The other files of the type (actions, queue edits, restore) decide; this one applies.
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
    let speaker = SpeechRenderer()

    public private(set) var queue = PlayQueue()
    private(set) var modes = PlayerModes()
    private(set) var transport = PlayerTransport.initial
    private(set) var loopMarks = LoopMarks.none
    private(set) var lastError: String?
    /// Entries that could not be played, with the reason (typed decoder error as text).
    public private(set) var failures: [EntryID: String] = [:]
    private var randomGenerator = SystemRandomNumberGenerator()
    /// Announcement failures already logged (each reason once).
    private var announcementProblems: Set<String> = []
    private var endWaiters: [CheckedContinuation<Void, Never>] = []
    private var playingWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiterID = 0
    private var lastCheckpoint: EntryFrame?
    /// Durable writes of the state (`save`), counted: a command writes once, and tests count it.
    public private(set) var durableWrites = 0
    /// A command changed the tempo or the loop since the current entry started: a practice memory arriving now is
    /// refused (the listener's change wins).
    var practiceTouched = false
    /// A loop was set behind what is heard: the engine is about to jump to its start (`notePendingLoopJump`).
    var pendingLoopJump: EntryFrame?
    /// The source rate of the entry a restore left current without starting it (a stopped restart), when that entry
    /// has a loop: the status needs it to turn the loop's frames into seconds before anything is heard.
    var idleRate: (entry: EntryID, rate: Int)?

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
        if transport.isStopped { return }
        await withCheckedContinuation { endWaiters.append($0) }
    }

    public func status() -> PlayerStatus {
        let heard = currentPosition()
        let stopped = transport.isStopped
        var status = PlayerStatus()
        status.state = transport.state
        // Stopped, the cursor is the truth (the engine may not have taken in a stop, or a clear, just asked).
        status.entryID = stopped ? current : heard.entryID ?? current
        status.path = status.entryID.flatMap { queue.entry(id: $0)?.uri }
        status.elapsedFrames = stopped ? 0 : heard.sourceFrame
        status.elapsed = stopped ? 0 : heard.seconds
        status.sourceSampleRate = heard.sourceRate > 0 ? heard.sourceRate
            : idleRate.flatMap { $0.entry == status.entryID ? $0.rate : nil } ?? 0
        status.volume = modes.volume
        status.repeatMode = modes.repeatMode
        status.single = modes.single
        status.singleOneshot = modes.singleOneshot
        status.tempoPercent = modes.tempoPercent
        status.loop = loopMarks.loop.flatMap { $0.entry == status.entryID ? $0.region : nil }
        status.loopPendingA = loopMarks.pendingA?.frame
        status.replayGain = modes.replayGain
        status.outputFormat = heard.deviceFormat?.description
        status.lastError = heard.waitingForDevice ? "waiting for the audio device" : lastError
        return status
    }

    /// The entry the listener hears (or heard last), or where a stopped player starts.
    var current: EntryID? { transport.current }

    /// Modes MPD reports that `PlayerStatus` does not carry.
    public var isConsuming: Bool { modes.consume != .off }
    public var isShuffled: Bool { queue.shuffledOrder != nil }

    /// Whether audio is playing now (not paused, not stopped).
    public var isPlaying: Bool { transport.isPlaying }

    /// The entry that will play after the current one, under the current modes.
    public func upcomingEntry() -> QueueEntry? {
        guard let current else { return nil }
        return modes.successor(of: current, in: queue, afterFailure: false)
    }

    // MARK: engine events

    private func handle(_ event: EngineEvent) async {
        switch event {
        case let .decodingStarted(entry):
            let next = modes.successor(of: entry, in: queue, afterFailure: false)
            if modes.announcements.onTrackChange, let next {
                // Rendered before the decoder learns what follows, so it has the words when it gets there.
                if let speech = await speak(await trackTitle(next)) {
                    engine.prepareTrackAnnouncement(next.id, speech, duck: modes.announcements.duck)
                }
            }
            engine.setUpcoming(after: entry, next.map(item))
        case let .trackFailed(entry, reason):
            logger.warning("skipping entry \(entry): \(reason)")
            lastError = reason
            failures[entry] = reason
            let failuresInARow = transport.failed()
            let next = failuresInARow >= max(1, queue.count)
                ? nil : modes.successor(of: entry, in: queue, afterFailure: true)
            engine.setUpcoming(after: entry, next.map(item))
            if next == nil && engine.position().state == .stopped { await markStopped() }
        case let .trackAudible(entry, generation):
            let previous = current
            guard transport.heard(entry, generation: generation) else { return }
            // The entry a command started (or a seek restarted) is audible: the command saved it already.
            guard previous != entry else {
                changeSink.yield(.player)
                return
            }
            practiceTouched = false
            var edit: PersistedQueueEdit?
            if editQueue({ queue, _ in queue.startedPlaying(entry) }) { edit = .reordered }
            if modes.consume != .off, let previous, queue.entry(id: previous) != nil {
                queue.remove(id: previous)
                if modes.consume == .oneshot {
                    modes.consume = .off
                    changeSink.yield(.options)
                }
                edit = .removed([previous])
            }
            await save(edit)
            if edit != nil { changeSink.yield(.queue) }
            changeSink.yield(.player)
        case .ended:
            await queueEnded()
        case .deviceLost:
            logger.warning("audio device lost or absent; retrying every \(engine.config.deviceRetryMilliseconds) ms")
        case .deviceRestored:
            logger.notice("audio device back; resuming at the same position")
        case .underrun:
            logger.debug("output underrun recovered")
        case let .tempoChanged(tempo):
            modes.tempoPercent = Int((tempo * 100).rounded())
            changeSink.yield(.player)
        }
    }

    // MARK: the transport (the one place it changes)

    /// Starts `entry` at `frame`; `rate`: the entry's source rate where the caller knows it (a seek, a restore);
    /// `countingIn`: with the count-in (a start from play, not a seek or a skip); `paused`: start paused or playing
    /// (nil: as the transport is now — a skip or a seek while paused stays paused).
    /// `queueEdit`: how the caller changed the queue for this start (the random order, a consumed or removed entry);
    /// saved with the start, in one write. Everything changes before the first `await`: nothing can come between.
    /// `songStarted`: a song starts here as MPD's SongStarted counts it (play, a skip, the entry after one removed,
    /// a border pause), which returns its priority to 0; false for a seek (even into another entry) and a restore.
    func begin(_ entry: QueueEntry, atFrame frame: Int64 = 0, rate: Int? = nil, countingIn: Bool = false,
               paused: Bool? = nil, queueEdit: PersistedQueueEdit? = nil, songStarted: Bool = true) async {
        let known = currentPosition()
        let rate = rate ?? (known.entryID == entry.id && known.sourceRate > 0 ? known.sourceRate : nil)
        if entry.id != transport.current { practiceTouched = false }
        pendingLoopJump = nil  // a start or a seek of its own supersedes a jump into a loop
        let paused = paused ?? (transport.state == .paused)
        engine.setPaused(paused)
        let generation = engine.start(item(entry), atFrame: frame, countIn: countingIn ? modes.countIn : nil)
        let start = RequestedStart(generation: generation, entry: entry.id, frame: frame, rate: rate)
        transport = .running(RunningTransport(entry: entry.id, paused: paused, start: start))
        // A skip to an entry whose rate is not known yet: read it now, off the actor, so that a seek that follows
        // (a skip and a seek while paused) finds it instead of waiting for the file's header.
        if rate == nil { Task { await self.resolveRequestedRate() } }
        transportChanged()
        // MPD's SongStarted: a started entry's priority returns to 0.
        let reprioritized = songStarted && editQueue { queue, _ in queue.startedPlaying(entry.id) }
        let edit = queueEdit ?? (reprioritized ? .reordered : nil)
        if edit != nil { refreshUpcoming() }
        await save(edit, frame: frame)
        if edit != nil { changeSink.yield(.queue) }
        changeSink.yield(.player)
    }

    /// Stops the engine and the transport, keeping the current entry as where `play` starts (or forgetting it: its
    /// entry was removed). `queueEdit`: how the caller changed the queue with it, saved in the same write.
    /// `cursorAt`: where `play` starts afterwards instead (the entry after one removed while paused).
    func stop(clearingCursor: Bool = false, cursorAt: EntryID? = nil, queueEdit: PersistedQueueEdit? = nil) async {
        engine.stop()
        await markStopped(clearingCursor: clearingCursor, cursorAt: cursorAt, queueEdit: queueEdit)
    }

    /// The stream ran out after the current entry, as MPD 0.23 ends it: under `single` (not repeating the entry) it
    /// pauses at the start of the entry that follows (MPD's "border pause"; a `single oneshot` is then off); else the
    /// queue has played out and the player stops with no current entry. Under consume the entry finished leaves.
    private func queueEnded() async {
        guard let finished = current, !transport.isStopped else { return await markStopped() }
        var edit: PersistedQueueEdit?
        let following = modes.single && modes.repeatMode != .track
            ? queue.entry(after: finished, wrap: modes.repeatMode == .queue) : nil
        if modes.singleOneshot {
            updateModes {
                $0.single = false
                $0.singleOneshot = false
            }
            changeSink.yield(.options)
        }
        if modes.consume != .off, queue.entry(id: finished) != nil {
            editQueue { queue, _ in queue.remove(id: finished) }
            edit = .removed([finished])
            if modes.consume == .oneshot { updateModes { $0.consume = .off } }
        }
        if let following, following.id != finished {
            engine.stop()
            await begin(following, paused: true, queueEdit: edit)
        } else {
            await markStopped(clearingCursor: true, queueEdit: edit)
        }
    }

    /// The transport stopped (the engine has, or was just told to).
    private func markStopped(clearingCursor: Bool = false, cursorAt: EntryID? = nil,
                             queueEdit: PersistedQueueEdit? = nil) async {
        transport.moveCursor(to: cursorAt ?? (clearingCursor ? nil : transport.current))
        let waiters = endWaiters
        endWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
        await save(queueEdit)
        if queueEdit != nil { changeSink.yield(.queue) }
        changeSink.yield(.player)
    }

    /// Pauses or resumes; does nothing to a stopped transport (MPD: no effect when stopped).
    func setPaused(_ paused: Bool) {
        if transport.setPaused(paused) {
            engine.setPaused(paused)
            transportChanged()
        }
        changeSink.yield(.player)
    }

    /// Where a stopped player starts from (a skip while stopped, a restore); a running transport keeps its entry.
    func moveCursor(to entry: EntryID?) {
        guard transport.isStopped else { return }
        transport.moveCursor(to: entry)
        changeSink.yield(.player)
    }

    /// Wakes `waitUntilPlaying` callers when the transport may have started.
    private func transportChanged() {
        guard isPlaying, !playingWaiters.isEmpty else { return }
        let waiters = playingWaiters.values
        playingWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }

    // MARK: modes, loop and queue (the one place each changes)

    /// Changes the modes and tells the engine what it plays by: the output gain, the count-in before each loop pass,
    /// and — when repeat, single or ReplayGain changed — what follows the current entry. The caller says what changed.
    func updateModes(_ body: (inout PlayerModes) throws -> Void) rethrows {
        let old = modes
        try body(&modes)
        modes.volumeCeiling = max(0, min(100, modes.volumeCeiling))
        modes.volume = min(modes.volume, modes.volumeCeiling)
        if modes.outputGain != old.outputGain { engine.setGain(modes.outputGain) }
        if modes.countIn != old.countIn {
            engine.setPassCountIn(modes.countIn?.beforeEachPass == true ? modes.countIn : nil)
        }
        if modes.repeatMode != old.repeatMode || modes.single != old.single || modes.replayGain != old.replayGain {
            refreshUpcoming()
        }
    }

    /// Plays at `percent` of normal speed.
    func setTempo(_ percent: Int) {
        modes.tempoPercent = percent
        engine.setTempo(Double(percent) / 100)
        changeSink.yield(.player)
    }

    /// Starts (its start tempo at once) or ends the speed trainer; the engine reports each step as `tempoChanged`.
    func setTrainer(_ trainer: SpeedTrainer?) {
        if let trainer { modes.tempoPercent = Int((trainer.start * 100).rounded()) }
        engine.setTrainer(trainer)
        changeSink.yield(.player)
    }

    /// Replaces the loop marks and gives the engine the loop region (or takes it away).
    func setLoopMarks(_ marks: LoopMarks) {
        pendingLoopJump = nil
        if let loop = marks.loop {
            engine.setLoop(entry: loop.entry, loop.region)
        } else if let old = loopMarks.loop {
            engine.setLoop(entry: old.entry, nil)
        }
        loopMarks = marks
        changeSink.yield(.player)
    }

    /// Edits the queue (with the player's random source for shuffles); the caller saves the edit.
    func editQueue<Result>(_ body: (inout PlayQueue, inout SystemRandomNumberGenerator) throws -> Result) rethrows
        -> Result {
        try body(&queue, &randomGenerator)
    }

    /// Tells the engine again what follows the entry being heard (after a mode or queue change).
    func refreshUpcoming() {
        guard let entry = current, !transport.isStopped else { return }
        engine.setUpcoming(after: entry, modes.successor(of: entry, in: queue, afterFailure: false).map(item))
    }

    /// Forgets the last error (MPD `clearerror`).
    public func clearError() {
        lastError = nil
        changeSink.yield(.player)
    }

    // MARK: what the engine is given

    nonisolated func path(for uri: String) -> String {
        guard !uri.hasPrefix("/"), let musicDirectory else { return uri }
        return musicDirectory + "/" + uri
    }

    func item(_ entry: QueueEntry) -> PlayableItem {
        PlayableItem(entryID: entry.id, path: path(for: entry.uri),
                     replayGain: modes.replayGain(for: entry, shuffled: queue.shuffledOrder != nil))
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

    // MARK: position

    /// What is heard now or, while a start just asked for is not audible yet (paused after a seek or a skip, or still
    /// filling the device), that start: the position `status`, `previous`, seeks, loop marks and snapshots act on, so
    /// that two presses in a row while paused build on each other instead of on a stale heard position.
    func currentPosition() -> EnginePosition {
        var heard = engine.position()
        if let asked = transport.requestedStart, heard.generation < asked.generation {
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
        guard let asked = transport.requestedStart, asked.rate == nil, engine.position().generation < asked.generation,
              let entry = queue.entry(id: asked.entry) else { return }
        let file = path(for: entry.uri)
        let rate = await BlockingWork.run { (try? DecoderRegistry.open(path: file))?.format.sampleRate }
        guard let rate, case var .running(run) = transport, run.start.generation == asked.generation else { return }
        run.start.rate = rate
        transport = .running(run)
    }

    // MARK: persistence

    /// The persistent state now (the current position unless `frame` is given).
    func snapshot(frame: Int64? = nil) -> PlayerSnapshot {
        var s = PlayerSnapshot()
        let heard = currentPosition()
        s.transport = switch transport.state {
        case .stopped: .stopped
        case .paused: .paused
        case .playing: .playing
        }
        s.currentEntry = current
        s.positionFrames = frame ?? (heard.entryID == current ? heard.sourceFrame : 0)
        // A jump into a loop just set, not heard yet: where playback is about to be.
        if frame == nil, let jump = pendingLoopJump, jump.entry == current, heard.entryID == jump.entry,
           let loop = loopMarks.loop, loop.entry == jump.entry, heard.sourceFrame >= loop.region.end {
            s.positionFrames = jump.frame
        }
        s.sampleRate = heard.sourceRate
        s.volume = modes.volume
        s.tempoPercent = modes.tempoPercent
        s.repeatMode = modes.repeatMode
        // The oneshot modes are one command's "once": not kept across a restart (as MPD's state file keeps neither).
        s.single = modes.single && !modes.singleOneshot
        s.consume = modes.consume == .on
        s.replayGain = modes.replayGain
        s.loop = loopMarks.loop
        s.queueVersion = queue.version
        s.nextEntryID = queue.nextID
        return s
    }

    /// Writes the heard position (called every checkpoint interval while playing); skips a write that would repeat
    /// the last one (paused, or the device waiting).
    public func checkpoint() async {
        guard !transport.isStopped, let current else { return }
        let heard = engine.position()
        guard heard.entryID == current, heard.sourceRate > 0 else { return }
        if let jump = pendingLoopJump, !(jump.entry == current && loopMarks.loop.map { heard.sourceFrame >= $0.region.end } == true) {
            pendingLoopJump = nil  // the jump was heard (or the loop or the entry changed)
        }
        if pendingLoopJump != nil { return }  // the position heard is the one before the jump
        if let last = lastCheckpoint, last.entry == current, last.frame == heard.sourceFrame { return }
        lastCheckpoint = EntryFrame(entry: current, frame: heard.sourceFrame)
        await persistence?.checkpoint(entry: current, frame: heard.sourceFrame, sampleRate: heard.sourceRate,
                                      writeNumber: durableWrites)
    }

    /// Saves everything with the heard position, for a clean shutdown (SIGTERM): a restart resumes right here.
    public func saveForShutdown() async {
        await save()
    }

    /// Writes the state durably — with the queue when `edit` says it changed — at the heard position (or `frame`):
    /// the one place the player saves, so a command's writes can be counted (one per command).
    func save(_ edit: PersistedQueueEdit? = nil, frame: Int64? = nil) async {
        durableWrites += 1
        var state = snapshot(frame: frame)
        state.writeNumber = durableWrites
        if let edit {
            await persistence?.saveQueueEdit(edit, queue: queue, snapshot: state)
        } else {
            await persistence?.saveSnapshot(state)
        }
    }

    // MARK: waiting

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
}
