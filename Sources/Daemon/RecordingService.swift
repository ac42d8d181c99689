import AudioCore
import Engine
import FermataConfig
import FermataCore
import Foundation
import Logging
import Player
import Recording
import ServiceLifecycle
import Synchronization

/// Recording yourself: while on (`record on`) and a loop or section plays, each pass becomes a take lined up with the
/// pass at the sample. It opens the capture device of `record.device` at the output's rate once the output plays, feeds
/// the passes the listener reaches (`PlaybackEngine.nextHeardMark`) through the clock lines to the plan, and indexes
/// each take the writer commits, keeping the takes within `record.budget_mb`. A device that cannot open, refuses the
/// rate or goes away, and a take that cannot be written, are reported (`status`, the log) — playback never waits.
///
/// Threads: `run` is the service group's; the other methods from any task. The audio work is on the session's threads.
public final class RecordingService: Service, Sendable {
    /// What recording is doing, for `record` and the page.
    public enum Phase: Sendable, Equatable {
        case off
        /// On, waiting for the output to play (or to retry a device that went away).
        case waiting
        case capturing(rate: Int)
    }

    /// What `record` shows.
    public struct Status: Sendable, Equatable {
        public var device: String
        public var on: Bool
        /// A latency measurement runs (`fermata audio latency`).
        public var measuring: Bool
        public var phase: Phase
        public var latencyMilliseconds: Double?
        public var lastError: String?
        public var takes: Int
    }

    /// Why a request was refused, in words for the client.
    public struct Refusal: Error, CustomStringConvertible {
        public let description: String
    }

    /// What the service's task and the commands share, under `state`'s lock (never held across an await).
    struct State {
        var on = false
        var measuring = false
        var phase = Phase.off
        var lastError: String?
        var latency: RoundTripLatency?
        var takes = 0
        /// The rate the output last played at (the latency is measured at it).
        var lastRate: Int?
        /// The takes asked of the writer, by id, until it reports them.
        var pending: [Int64: (take: RecordingPlan.Take, latencyFrames: Int)] = [:]
    }

    let device: String
    let outputDevice: String
    let budgetBytes: Int64
    let engine: PlaybackEngine
    let player: Player
    let takes: TakeStore
    let latencies: LatencyStore
    let logger: Logger
    let priority: WorkerThread.Priority
    let tick: Duration
    /// alsa-lib configuration text for the capture device (tests: a PCM defined there; nil: the system's).
    let captureConfigText: String?
    /// Tells clients of a change (`idle`'s `player`, as the page listens).
    let announce: @Sendable () -> Void
    private let state = Mutex(State())
    private let wake = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))

    public init(device: String, outputDevice: String, budgetMB: Int, engine: PlaybackEngine, player: Player,
                takes: TakeStore, latencies: LatencyStore, logger: Logger, realtimePriority: Int = 0,
                tick: Duration = .milliseconds(20), captureConfigText: String? = nil,
                announce: @escaping @Sendable () -> Void = {}) {
        self.device = device
        self.outputDevice = outputDevice
        budgetBytes = Int64(max(1, min(1_000_000, budgetMB))) * 1_048_576
        self.engine = engine
        self.player = player
        self.takes = takes
        self.latencies = latencies
        self.logger = logger
        priority = realtimePriority > 0 ? .realtime(Int32(realtimePriority)) : .normal
        self.tick = tick
        self.captureConfigText = captureConfigText
        self.announce = announce
    }

    /// Turns recording on or off. Refused with no `record.device`.
    public func set(on: Bool) throws(Refusal) {
        guard !device.isEmpty || !on else {
            throw Refusal(description: "no capture device: set record.device in the configuration (`arecord -L` lists them)")
        }
        state.withLock {
            $0.on = on
            if on { $0.lastError = nil }
        }
        wake.continuation.yield()
        announce()
    }

    public func status() -> Status {
        state.withLock { s in
            Status(device: device, on: s.on, measuring: s.measuring, phase: s.phase, latencyMilliseconds: s.latency?.milliseconds, lastError: s.lastError,
                   takes: s.takes)
        }
    }

    public func run() async throws {
        try? takes.folder.create()
        do {
            try await takes.tidy()
            let count = try await takes.takes().count
            state.withLock { $0.takes = count }
        } catch {
            logger.error("recording: cannot tidy the takes folder \(takes.folder.path): \(error)")
        }
        await withDiscardingTaskGroup { group in
            group.addTask { await self.drive() }
            try? await gracefulShutdown()
            wake.continuation.finish()
            group.cancelAll()
        }
    }

    /// The service's loop: idle while off; a tick every `tick` while on.
    func drive() async {
        var session: RecordingSession?
        var retryAt = ContinuousClock.now
        var outcomes: Task<Void, Never>?
        defer {
            if let session { close(session) }
            outcomes?.cancel()
        }
        while !Task.isCancelled {
            let (on, measuring) = state.withLock { ($0.on, $0.measuring) }
            if !on || measuring {
                if let open = session {
                    close(open)
                    session = nil
                }
                setPhase(on && !measuring ? .waiting : .off)
                for await _ in wake.stream { break }
                continue
            }
            let position = engine.position()
            if let open = session {
                if let code = open.lostCode {
                    report("the capture device \(device) went away (error \(code)); playback goes on, recording resumes when it is back")
                    close(open)
                    session = nil
                    retryAt = .now + .seconds(1)
                } else if let rate = position.deviceFormat?.sampleRate, rate != open.format.sampleRate {
                    close(open)
                    session = nil
                } else {
                    await step(open, position: position)
                    if let loss = open.lossSinceLastLook() { logger.notice("recording: \(loss)") }
                }
            } else if position.state == .playing, let format = position.deviceFormat, ContinuousClock.now >= retryAt {
                do {
                    let opened = try await open(format: format)
                    session = opened
                    outcomes = Task { await self.consume(opened.writer.finished) }
                    setPhase(.capturing(rate: opened.format.sampleRate))
                    state.withLock { $0.lastRate = format.sampleRate }
                    engine.observeHeardMarks(true)
                } catch {
                    report("\(error)")
                    retryAt = .now + .seconds(5)
                }
            } else {
                setPhase(.waiting)
            }
            try? await Task.sleep(for: tick)
        }
    }

    private func open(format: AudioFormat) async throws -> RecordingSession {
        let stored = try? await latencies.latency(output: outputDevice, capture: device)
        if stored == nil {
            logger.warning("recording: the round trip from \(outputDevice) to \(device) is not measured: takes are not moved by it (run `fermata audio latency` once)")
        }
        // Made at start too; again here, so a takes folder removed meanwhile does not fail every take.
        try? takes.folder.create()
        let nextID = (try? await takes.nextID()) ?? 1
        state.withLock { $0.latency = stored }
        let (device, folder, priority, configText) = (self.device, takes.folder, self.priority, captureConfigText)
        let latencyFrames = stored?.frames(atRate: format.sampleRate) ?? 0
        return try await BlockingWork.run { () throws -> RecordingSession in
            do {
                return try RecordingSession(device: device, format: format, folder: folder, latencyFrames: latencyFrames,
                                            nextID: nextID, priority: priority, configText: configText)
            } catch {
                throw Refusal(description: "\(error)")
            }
        }
    }

    /// One tick of a running session: both clocks read, the loop looked up, the marks heard handed to the plan.
    private func step(_ session: RecordingSession, position: EnginePosition) async {
        let xrun = session.sampleClocks(heard: engine.heardClock())
        let status = await player.status()
        let now = session.captureFrameNow
        var actions: [RecordingPlan.Action] = []
        if let xrun { actions += session.plan.interrupted(captureFrameNow: now, reason: xrun) }
        actions += session.plan.loopChanged(Self.loop(of: status, deviceRate: session.format.sampleRate),
                                            captureFrameNow: now)
        if position.state != .playing {
            actions += session.plan.interrupted(captureFrameNow: now, reason: "playback paused or stopped")
        }
        while let mark = engine.nextHeardMark() {
            let kind: RecordingPlan.Boundary.Kind = switch mark.kind {
            case .seam: .seam
            case .start: .start
            case .jump: .jump
            }
            actions += session.plan.heard(.init(kind: kind, entry: mark.entryID, pass: mark.pass,
                                                sourceFrame: mark.sourceFrame, rateRatio: mark.rateRatio,
                                                captureFrame: session.captureFrame(for: mark)))
        }
        session.plan.captureReached(Int64(session.writer.position.load(ordering: .relaxed)))
        for action in actions { apply(action, to: session) }
    }

    private func apply(_ action: RecordingPlan.Action, to session: RecordingSession) {
        switch action {
        case let .record(take):
            state.withLock { $0.pending[take.id] = (take, session.latencyFrames) }
            session.writer.begin(id: take.id, atFrame: Int(clamping: take.start))
            session.writer.end(id: take.id, atFrame: Int(clamping: take.end))
        case let .shorten(id, end): session.writer.shorten(id: id, toFrame: Int(clamping: end))
        case let .abandon(id, reason): session.writer.abandon(id: id, reason: reason)
        }
    }

    /// The loop the player plays now: the A–B loop (a section's region), or a queued section's span with passes.
    static func loop(of status: PlayerStatus, deviceRate: Int) -> RecordingPlan.Loop? {
        guard let entry = status.entryID, let path = status.path, status.sourceSampleRate > 0 else { return nil }
        let rate = Int64(status.sourceSampleRate)
        var region = status.loop
        if region == nil, let span = status.span, span.passes > 1, let end = span.endMilliseconds {
            region = LoopRegion(start: span.startMilliseconds * rate / 1000, end: end * rate / 1000)
        }
        guard let region, region.length > 0 else { return nil }
        return RecordingPlan.Loop(entry: entry, path: path, region: region, sourceRate: status.sourceSampleRate,
                                  tempoPercent: status.tempoPercent, deviceRate: deviceRate)
    }

    /// The index row of a take the writer committed: the track, the loop's ends, the pass and the tempo it was
    /// recorded at, and what the writer wrote.
    static func record(of take: RecordingPlan.Take, frames: Int64, format: AudioFormat, bytes: Int64, latencyFrames: Int,
                       at date: Date) -> TakeRecord {
        TakeRecord(id: take.id, path: take.loop.path, loopStartMilliseconds: take.loop.startMilliseconds,
                   loopEndMilliseconds: take.loop.endMilliseconds, pass: take.pass, tempoPercent: take.tempoPercent,
                   sampleRate: format.sampleRate, channels: format.channels, frames: frames, bytes: bytes,
                   latencyFrames: latencyFrames, recordedAt: date)
    }

    /// Indexes each take the writer commits (then keeps the budget), and reports the ones it could not.
    private func consume(_ finished: AsyncStream<TakeWriter.Outcome>) async {
        for await outcome in finished {
            switch outcome {
            case let .committed(id, frames, format):
                guard let (take, latency) = state.withLock({ $0.pending.removeValue(forKey: id) }) else { continue }
                let record = Self.record(of: take, frames: frames, format: format, bytes: takes.folder.size(of: id),
                                         latencyFrames: latency, at: Date())
                do {
                    try await takes.add(record)
                    let deleted = try await takes.keepWithin(budgetBytes: budgetBytes)
                    if !deleted.isEmpty { logger.info("recording: takes \(deleted) deleted to stay within record.budget_mb") }
                    let count = try await takes.takes().count
                    state.withLock { $0.takes = count }
                    logger.info("recording: take \(id) of pass \(take.pass) (\(frames) frames) kept")
                    announce()
                } catch {
                    report("take \(id) could not be indexed: \(error)")
                    try? takes.folder.delete(id)
                }
            case let .failed(id, reason):
                state.withLock { _ = $0.pending.removeValue(forKey: id) }
                if reason == TakeWriter.stopped || reason == TakeWriter.stoppedBefore {
                    // Turned off mid-pass: what was asked, not a problem for `record` and the page to show.
                    logger.info("recording: take \(id) not kept: \(reason)")
                } else {
                    report("take \(id) not kept: \(reason)")
                }
            }
        }
    }

    /// The takes kept (of one track with `path`), newest first.
    public func list(path: String? = nil) async throws -> [TakeRecord] { try await takes.takes(path: path) }

    /// Deletes take `id`, its file and its row; false when there is no such take.
    public func delete(id: Int64) async throws -> Bool {
        let deleted = try await takes.delete(id)
        if deleted {
            let count = try await takes.takes().count
            state.withLock { $0.takes = count }
            announce()
        }
        return deleted
    }

    /// `fermata audio latency`: plays clicks and hears them (`LatencyProbe`), with playback stopped; stores the round
    /// trip for this pair of devices. Recording's capture is closed meanwhile and reopened after.
    /// How many times `measureLatency` plays its clicks before it says they were not heard.
    static let latencyAttempts = 3

    public func measureLatency(rate requested: Int? = nil) async throws(Refusal) -> RoundTripLatency {
        guard !device.isEmpty else {
            throw Refusal(description: "no capture device: set record.device in the configuration (`arecord -L` lists them)")
        }
        guard await player.status().state == .stopped else {
            throw Refusal(description: "stop playback first: the clicks need the output device to themselves")
        }
        let busy = state.withLock { s in
            defer { s.measuring = true }
            return s.measuring
        }
        guard !busy else { throw Refusal(description: "a measurement is already running") }
        wake.continuation.yield()
        defer {
            state.withLock { $0.measuring = false }
            wake.continuation.yield()
        }
        // The session's devices are closed by the service's loop within a tick.
        try? await Task.sleep(for: tick * 3)
        var fixed: Int?
        if case let .fixed(format?) = engine.config.formatPolicy { fixed = format.sampleRate }
        let rate = requested ?? fixed ?? state.withLock { $0.lastRate } ?? 48_000
        let (probe, configText, priority) = (LatencyProbe(output: outputDevice, capture: device, rate: rate),
                                             captureConfigText, self.priority)
        // The clicks are played on a thread of the capture's priority, the output's (a starved probe underruns the output and its
        // clocks no longer say where the clicks went), and measured again, up to three times, when too few were
        // heard: a loaded kernel-lab run heard fewer than 4 of 8 once, and its takes were then not moved at all.
        var result: Result<(frames: Int, heard: Int), LatencyProbe.Failure> = .failure(.notHeard("not measured"))
        for attempt in 1...Self.latencyAttempts {
            result = await BlockingWork.run {
                let outcome = Mutex<Result<(frames: Int, heard: Int), LatencyProbe.Failure>?>(nil)
                WorkerThread.started(name: "fermata-latency", priority: priority) {
                    do throws(LatencyProbe.Failure) {
                        let measured = try probe.measure(captureConfigText: configText)
                        outcome.withLock { $0 = .success(measured) }
                    } catch {
                        outcome.withLock { $0 = .failure(error) }
                    }
                }.join()
                return outcome.withLock { $0 } ?? .failure(.notHeard("the measurement did not run"))
            }
            guard case let .failure(.notHeard(why)) = result, attempt < Self.latencyAttempts else { break }
            logger.notice("recording: round trip, attempt \(attempt) of \(Self.latencyAttempts): \(why); again")
        }
        switch result {
        case let .failure(error): throw Refusal(description: error.description)
        case let .success(measured):
            let latency = RoundTripLatency(outputDevice: outputDevice, captureDevice: device, sampleRate: rate,
                                           frames: measured.frames, measuredAt: Date())
            do { try await latencies.save(latency) } catch {
                throw Refusal(description: "measured \(latency.milliseconds) ms but could not store it: \(error)")
            }
            state.withLock { $0.latency = latency }
            logger.notice("recording: round trip \(outputDevice) → \(device): \(measured.frames) frames at \(rate) Hz (\(measured.heard) clicks heard)")
            announce()
            return latency
        }
    }

    private func close(_ session: RecordingSession) {
        engine.observeHeardMarks(false)
        session.close()
    }

    private func setPhase(_ phase: Phase) {
        let changed = state.withLock { s in
            defer { s.phase = phase }
            return s.phase != phase
        }
        if changed { announce() }
    }

    private func report(_ text: String) {
        logger.warning("recording: \(text)")
        state.withLock { $0.lastError = text }
        announce()
    }
}
