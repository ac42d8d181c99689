import AudioCore
import AudioOutput
import FermataCore
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The playing core: a decoder thread and an output thread joined by a lock-free ring. Actions go in through these
/// methods; the heard position comes out through `position()`, and events through `events`.
///
/// Threads: every method may be called from any thread or task (commands are queued to the decoder thread, transport
/// requests are atomics read by the output thread). Call `shutdown()` before releasing it.
public final class PlaybackEngine: Sendable {
    public let config: EngineConfig
    public let events: AsyncStream<EngineEvent>
    let shared: EngineShared
    private let mailbox: DecoderMailbox
    private let outputThread = WorkerThread()
    private let decoderThread = WorkerThread()
    private let monitorThread = WorkerThread()
    private let taps: [OutputTap]
    private let eventsContinuation: AsyncStream<EngineEvent>.Continuation
    private let startCount = Atomic<Int>(0)

    /// Starts the threads. `sink` is handed to the output thread, which owns it from now on; `taps` are the secondary
    /// outputs fed with the frames `sink` accepts (their threads start and stop with the engine).
    public init(sink: sending any AudioSink, config: EngineConfig = EngineConfig(), taps: [OutputTap] = []) {
        self.config = config
        self.taps = taps
        let (stream, continuation) = AsyncStream<EngineEvent>.makeStream(bufferingPolicy: .unbounded)
        events = stream
        eventsContinuation = continuation
        let shared = EngineShared(ringBytes: config.ringBytes)
        self.shared = shared
        let mailbox = DecoderMailbox(bell: shared.decoderBell)
        self.mailbox = mailbox
        for tap in taps { tap.start() }
        // Each loop is made here and handed to its thread, which alone uses it from then on.
        let outputLoop = OutputLoop(shared: shared, sink: sink, config: config, taps: taps)
        let outputPriority = config.realtimePriority.map { WorkerThread.Priority.realtime($0) } ?? .normal
        outputThread.start(name: "fermata-output", priority: outputPriority) { outputLoop.run() }
        let decodeLoop = DecodeLoop(shared: shared, config: config, mailbox: mailbox, events: continuation)
        decoderThread.start(name: "fermata-decode") { decodeLoop.run() }
        monitorThread.start(name: "fermata-events") {
            while !shared.shutdown.load(ordering: .acquiring) {
                shared.monitorBell.wait()
                while let event = shared.events.pop() { continuation.yield(Self.translate(event)) }
            }
        }
    }

    /// How the output thread's scheduling request went (for the log).
    public var schedulingNote: String { outputThread.schedulingNote }

    // MARK: actions

    /// Plays `item` from `frame`, discarding what the device holds (start, skip, seek).
    /// Returns the start's generation: `position().generation` reaches it once the new audio is heard.
    @discardableResult
    public func start(_ item: PlayableItem, atFrame frame: Int64 = 0, countIn: CountInPlan? = nil) -> Int {
        let generation = startCount.add(1, ordering: .relaxed).newValue
        mailbox.send(.start(item, frame: frame, generation: generation, countIn: countIn))
        return generation
    }

    /// Plays `item` from `frame` as start `generation`, numbered by the caller (the player's state numbers its starts,
    /// so it knows the generation it asked for before the engine hears of it). One engine, one numbering: a caller
    /// that numbers its starts uses only this method, with increasing generations.
    public func start(_ item: PlayableItem, atFrame frame: Int64, countIn: CountInPlan?, generation: Int) {
        mailbox.send(.start(item, frame: frame, generation: generation, countIn: countIn))
    }
    /// Says what plays after `entry` (nil: the stream ends after it).
    public func setUpcoming(after entry: EntryID, _ item: PlayableItem?) {
        mailbox.send(.setUpcoming(after: entry, item))
    }
    /// Sets or clears the A–B loop of `entry`; takes effect on the next pass.
    public func setLoop(entry: EntryID, _ region: LoopRegion?) { mailbox.send(.setLoop(entry: entry, region)) }
    /// Stops and closes the device.
    public func stop() { mailbox.send(.stop) }
    /// Playback speed without pitch change (1 = normal and bit-exact); heard within a few milliseconds, continuing
    /// from the heard position.
    public func setTempo(_ tempo: Double) { mailbox.send(.setTempo(tempo)) }
    /// Transposition in semitones (fractions are cents; 0 = none, and with tempo 1 bit-exact), independent of the
    /// tempo; heard within a few milliseconds, continuing from the heard position.
    public func setPitch(semitones: Double) { mailbox.send(.setPitch(semitones)) }
    /// The click over the track (nil: off); heard from the next stretch the decoder writes (a few hundred
    /// milliseconds).
    public func setMetronome(_ setting: MetronomeSetting?) { mailbox.send(.setMetronome(setting)) }
    /// Mixes a take over its original's passes (nil: none); sent before the entry starts, it sounds from its first frame.
    public func setTakeMix(_ mix: TakeMix?) { mailbox.send(.setTakeMix(mix)) }
    /// Starts (or with nil ends) the step trainer; its start tempo applies at once.
    public func setTrainer(_ trainer: SpeedTrainerPlan?) { mailbox.send(.setTrainer(trainer)) }
    /// "Again" for the step trainer: the pass being decoded does not count (a step back with a plan that falls back).
    public func trainerAgain() { mailbox.send(.trainerAgain) }
    /// Count-in clicks before every A–B loop pass (nil: none).
    public func setPassCountIn(_ plan: CountInPlan?) { mailbox.send(.setPassCountIn(plan)) }
    /// Plays `speech` now at the heard position (or at the next start when nothing plays): over the music, ducked,
    /// or before it while the position holds.
    public func announce(_ speech: Speech, duck: Bool) { mailbox.send(.announce(speech, duck: duck)) }
    /// Plays `speech` when `entry` begins after a track change (send it before naming the entry as upcoming).
    public func prepareTrackAnnouncement(_ entry: EntryID, _ speech: Speech, duck: Bool) {
        mailbox.send(.trackAnnouncement(entry, speech, duck: duck))
    }

    public func setPaused(_ paused: Bool) {
        shared.pauseRequested.store(paused, ordering: .releasing)
        shared.outputBell.ring()
    }

    /// Linear output gain (1 = unity, bit-exact); ramped by the output thread.
    public func setGain(_ gain: Double) {
        shared.volumeGain = max(0, min(1, gain))
        shared.outputBell.ring()
    }

    /// Fades the output's level apart from the volume (`OutputFade`); returns the fade's serial for `fadeState`.
    /// One caller at a time (the daemon's timers): a newer fade replaces an older one.
    @discardableResult
    public func fade(_ fade: OutputFade) -> Int {
        let serial = shared.fades.order(fade)
        shared.outputBell.ring()
        return serial
    }

    /// Where the fade `serial` is (lock-free; any thread).
    public func fadeState(of serial: Int) -> OutputFadeState { shared.fades.state(of: serial) }

    /// The serial of the newest fade asked for (0: none yet), for a look at where the output's fade is.
    public var newestFade: Int { shared.fades.newest() }

    // MARK: observation

    /// What the listener hears now.
    public func position() -> EnginePosition {
        let heard = shared.heard()
        let state: PlayState = switch heard.state {
        case .closed: .stopped
        case .paused: .paused
        case .running: .playing
        case .waitingForDevice: isPauseRequested ? .paused : .playing
        }
        return EnginePosition(state: state, entryID: heard.entryID, sourceFrame: heard.sourceFrame,
                              sourceRate: heard.sourceRate, deviceFormat: heard.device,
                              waitingForDevice: heard.state == .waitingForDevice, generation: heard.generation,
                              pass: Int(heard.pass))
    }

    /// Whether a pause has been asked for (the output thread may take up to one period to act on it).
    public var isPauseRequested: Bool { shared.pauseRequested.load(ordering: .relaxed) }

    /// CLOCK_MONOTONIC nanoseconds when the first frame reached the device, or nil (start-up benchmarks).
    public var firstFrameMonotonicNanoseconds: Int? {
        let value = shared.firstFrameNanoseconds.load(ordering: .relaxed)
        return value == 0 ? nil : value
    }

    /// The output's latest heard-clock reading (lock-free; any thread): which ring byte is heard at which
    /// CLOCK_MONOTONIC instant. `bytesPerFrame` 0 until the device first plays.
    public func heardClock() -> HeardClockReading { shared.heardClock.read() }

    /// Starts (or stops) pushing the marks the listener reaches to `nextHeardMark` (one observer: the recording
    /// service). Starting drops any left from before.
    public func observeHeardMarks(_ on: Bool) {
        if on { while shared.heardMarks.pop() != nil {} }
        shared.observingMarks.store(on, ordering: .relaxed)
    }

    /// The next mark the listener reached since `observeHeardMarks(true)`, oldest first (the one observer only).
    public func nextHeardMark() -> HeardMark? { shared.heardMarks.pop() }

    /// Frames handed to the device since start (benchmarks).
    public var framesWritten: Int { shared.framesWritten.load(ordering: .relaxed) }

    /// Stops the threads and closes the device.
    public func shutdown() {
        guard !shared.shutdown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        shared.outputBell.ring()
        shared.decoderBell.ring()
        shared.monitorBell.ring()
        decoderThread.join()
        outputThread.join()
        monitorThread.join()
        for tap in taps { tap.stop() }
        eventsContinuation.finish()
    }

    /// What failed and why, in words, for the log (on the events thread, not the output thread: it allocates).
    static func deviceFault(code: Int32, opening: Bool) -> String {
        let what = opening ? "opening the device" : "writing to the device"
        guard code != 0 else { return opening ? "\(what): no error code" : "\(what): no device open" }
        return "\(what): \(String(cString: strerror(-code))) (error \(-code))"
    }

    private static func translate(_ event: OutputEvent) -> EngineEvent {
        switch event {
        case let .trackAudible(entry, generation): .trackAudible(entry, generation: generation)
        case let .passHeard(entry, pass): .passHeard(entry, pass: Int(pass))
        case .ended: .ended
        case let .deviceLost(code, opening): .deviceLost(reason: Self.deviceFault(code: code, opening: opening))
        case .deviceRestored: .deviceRestored
        case .underrun: .underrun
        }
    }
}

/// The engine's view of what is heard now.
public struct EnginePosition: Sendable, Equatable {
    public var state: PlayState
    public var entryID: EntryID?
    public var sourceFrame: Int64
    public var sourceRate: Int
    public var deviceFormat: AudioFormat?
    public var waitingForDevice: Bool
    /// The `start` generation being heard.
    public var generation: Int = 0
    /// The loop pass heard, from 1: the loop seams heard since the entry started, plus one.
    public var pass: Int = 1

    public var seconds: Double { sourceRate > 0 ? Double(sourceFrame) / Double(sourceRate) : 0 }
}
