import AudioCore
import Decoders
import FermataCore
import Logging

/// The player: the queue, the modes and the loop region on top of a `PlaybackEngine`. Every front end drives it
/// through `PlayerControl`.
///
/// Threads: an actor; call from any task. `run()` must be running (it consumes the engine's events).
public actor Player: PlayerControl {
    public nonisolated let engine: PlaybackEngine
    let logger: Logger
    public private(set) var queue = PlayQueue()
    var repeatMode = RepeatMode.off
    var single = false
    var volume = 100
    var replayGainMode = ReplayGainMode.off
    var stopped = true
    var loop: (entry: EntryID, region: LoopRegion)?
    var loopPendingA: (entry: EntryID, frame: Int64)?
    var lastError: String?
    /// Entries that could not be played, with the reason (typed decoder error as text).
    public private(set) var failures: [EntryID: String] = [:]
    /// The entry the listener hears (or heard last).
    var current: EntryID?
    var consecutiveFailures = 0
    private var endWaiters: [CheckedContinuation<Void, Never>] = []

    public init(engine: PlaybackEngine, logger: Logger = Logger(label: "fermata.player")) {
        self.engine = engine
        self.logger = logger
    }

    /// Consumes engine events until the engine shuts down.
    public func run() async {
        for await event in engine.events { handle(event) }
    }

    /// Appends files to the queue, reading their ReplayGain tags; returns the new entry ids.
    @discardableResult
    public func add(paths: [String]) -> [EntryID] {
        let gains = paths.map { (try? TagReader.read(path: $0))?.replayGain ?? ReplayGainInfo() }
        return queue.append(paths: paths, replayGain: gains)
    }

    /// Suspends until the stream ends (the queue played out or `stop`).
    public func waitUntilStopped() async {
        if stopped { return }
        await withCheckedContinuation { endWaiters.append($0) }
    }

    public func status() async -> PlayerStatus {
        let heard = engine.position()
        var status = PlayerStatus()
        status.state = stopped ? .stopped : engine.isPauseRequested ? .paused : .playing
        status.entryID = heard.entryID ?? current
        status.path = status.entryID.flatMap { queue.entry(id: $0)?.path }
        status.elapsedFrames = heard.sourceFrame
        status.elapsed = heard.seconds
        status.sourceSampleRate = heard.sourceRate
        status.volume = volume
        status.repeatMode = repeatMode
        status.single = single
        status.loop = loop.flatMap { $0.entry == status.entryID ? $0.region : nil }
        status.loopPendingA = loopPendingA?.frame
        status.replayGain = replayGainMode
        status.outputFormat = heard.deviceFormat?.description
        status.lastError = heard.waitingForDevice ? "waiting for the audio device" : lastError
        return status
    }

    // MARK: engine events

    private func handle(_ event: EngineEvent) {
        switch event {
        case let .decodingStarted(entry):
            engine.setUpcoming(after: entry, successor(of: entry, afterFailure: false))
        case let .trackFailed(entry, reason):
            logger.warning("skipping entry \(entry): \(reason)")
            lastError = reason
            failures[entry] = reason
            consecutiveFailures += 1
            let next = consecutiveFailures >= max(1, queue.count) ? nil : successor(of: entry, afterFailure: true)
            engine.setUpcoming(after: entry, next)
            if next == nil && engine.position().state == .stopped { markStopped() }
        case let .trackAudible(entry):
            current = entry
            consecutiveFailures = 0
        case .ended:
            markStopped()
        case .deviceLost:
            logger.warning("audio device lost or absent; retrying every \(engine.config.deviceRetryMilliseconds) ms")
        case .deviceRestored:
            logger.notice("audio device back; resuming at the same position")
        case .underrun:
            logger.debug("output underrun recovered")
        }
    }

    func markStopped() {
        stopped = true
        let waiters = endWaiters
        endWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }

    /// What plays after `entry` under the current modes.
    func successor(of entry: EntryID, afterFailure: Bool) -> PlayableItem? {
        if repeatMode == .track && !afterFailure { return queue.entry(id: entry).map(item) }
        if single && !afterFailure { return nil }
        return queue.entry(after: entry, wrap: repeatMode == .queue).map(item)
    }

    func item(_ entry: QueueEntry) -> PlayableItem {
        let info = entry.replayGain
        let gain: Double? = switch replayGainMode {
        case .off: nil
        case .track: info.trackGain.map { ReplayGainMath.linearGain(gainDB: $0, peak: info.trackPeak) }
        case .album, .auto: (info.albumGain ?? info.trackGain).map {
            ReplayGainMath.linearGain(gainDB: $0, peak: info.albumGain != nil ? info.albumPeak : info.trackPeak)
        }
        }
        return PlayableItem(entryID: entry.id, path: entry.path, replayGain: gain ?? 1)
    }

    func begin(_ entry: QueueEntry, atFrame frame: Int64 = 0) {
        stopped = false
        current = entry.id
        consecutiveFailures = 0
        engine.start(item(entry), atFrame: frame)
    }
}
