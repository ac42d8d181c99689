import AudioCore
import AudioOutput

/// The output thread's device lifecycle as one value: closed, running, paused (in the hardware or by dropping what
/// the device held), or waiting for a device that went away or could not be opened. It takes the pause requests,
/// each write's result, the retry timer, the end of the stream and the decoder's flush requests, and acts through an
/// `OutputEnvironment` (the sink, the ring cursor, the event queue) — so device loss and return, pause and flush are
/// tested with no thread (`OutputMachineTests`). It neither allocates nor locks: it runs on the real-time thread.
///
/// Threads: owned by `OutputLoop`, used on the output thread only.
struct OutputMachine {
    enum Phase: Equatable {
        case closed
        case running
        /// Paused; `inHardware`: the device holds its buffer (else it was dropped and the cursor rewound).
        case paused(inHardware: Bool)
        /// The device is gone or would not open; retried every `deviceRetryMilliseconds`, then playback resumes at
        /// the listener's position.
        case waitingForDevice
    }

    private(set) var phase = Phase.closed
    /// The format the device is (or was, while waiting) open at.
    private(set) var format: AudioFormat?

    /// What is published to the rest of the engine.
    var published: OutputState {
        switch phase {
        case .closed: .closed
        case .running: .running
        case .paused: .paused
        case .waitingForDevice: .waitingForDevice
        }
    }

    /// Pauses or resumes as asked.
    mutating func setPaused(_ wanted: Bool, _ env: some OutputEnvironment) -> Bool {
        switch phase {
        case .running where wanted:
            let inHardware = env.pauseDevice(true)
            if !inHardware { env.rewindToHeard() }
            phase = .paused(inHardware: inHardware)
            return true
        case let .paused(inHardware) where !wanted:
            if inHardware && !env.pauseDevice(false) { env.rewindToHeard() }
            phase = .running
            return true
        default:
            return false
        }
    }

    /// The result of one device write.
    mutating func wrote(_ result: SinkWriteResult, _ env: some OutputEnvironment) {
        switch result {
        case .written: break
        case .recovered: env.emit(.underrun)
        case let .deviceLost(code), let .failed(code): loseDevice(code: code, env)
        }
    }

    /// The retry timer while waiting for the device: reopens it at the same format; playback goes on from the
    /// listener's position (paused if a pause was asked for meanwhile).
    mutating func retryDevice(paused: Bool, _ env: some OutputEnvironment) -> Bool {
        guard phase == .waitingForDevice, let format else { return false }
        guard case let .success(actual) = env.openDevice(format), actual.isDeviceCompatible(with: format) else {
            env.closeDevice()
            return false
        }
        phase = paused ? .paused(inHardware: false) : .running
        env.emit(.deviceRestored)
        return true
    }

    /// The stream's end mark was reached: plays out what the device holds and closes it.
    mutating func streamEnded(_ env: some OutputEnvironment) {
        env.drainDevice()
        env.closeDevice()
        phase = .closed
    }

    /// Whether a flush of `kind` can be answered now: a reopen waits until the ring has played out.
    func canFlush(_ kind: FlushKind, ringHasData: Bool) -> Bool {
        !(kind == .reopen && ringHasData && phase == .running)
    }

    /// Carries out a flush request; returns the format to answer with (nil: the device is closed).
    mutating func flush(_ request: FlushRequest, paused: Bool, _ env: some OutputEnvironment) -> AudioFormat? {
        switch request.kind {
        case .splice:
            break
        case .drop, .close:
            if env.deviceIsOpen { env.dropDevice() }
            if case .paused = phase { phase = .paused(inHardware: false) }
        case .reopen:
            if env.deviceIsOpen { phase == .running ? env.drainDevice() : env.dropDevice() }
        }
        if request.kind == .close || request.kind == .reopen {
            env.closeDevice()
            phase = .closed
        }
        if request.kind == .reopen, request.settleMilliseconds > 0 { env.settle(milliseconds: request.settleMilliseconds) }
        if let requested = request.format, request.kind != .close { openIfNeeded(requested, paused: paused, env) }
        return env.deviceIsOpen || phase == .waitingForDevice ? format : nil
    }

    private mutating func openIfNeeded(_ requested: AudioFormat, paused: Bool, _ env: some OutputEnvironment) {
        if env.deviceIsOpen && phase != .closed {
            if phase == .waitingForDevice { phase = paused ? .paused(inHardware: false) : .running }
            return
        }
        switch env.openDevice(requested) {
        case let .success(actual):
            format = actual
            phase = paused ? .paused(inHardware: false) : .running
        case let .failure(error):
            format = requested
            phase = .waitingForDevice
            env.emit(.deviceLost(code: error.code, opening: true))
        }
    }

    private mutating func loseDevice(code: Int32, _ env: some OutputEnvironment) {
        env.closeDevice()
        env.rewindToReleased()
        phase = .waitingForDevice
        env.emit(.deviceLost(code: code, opening: false))
    }
}

/// What `OutputMachine` acts through: the sink, the ring cursor and the event queue. `OutputLoop` is the real one;
/// `OutputMachineTests` record the calls.
///
/// Threads: the output thread only; none of it may allocate, lock or log.
protocol OutputEnvironment: AnyObject {
    var deviceIsOpen: Bool { get }
    /// Opens the device at `format`; the format in use, or nil when it would not open.
    func openDevice(_ format: AudioFormat) -> Result<AudioFormat, SinkOpenError>
    func closeDevice()
    /// Pauses or resumes in the hardware; false when the device cannot.
    func pauseDevice(_ on: Bool) -> Bool
    func dropDevice()
    func drainDevice()
    /// Waits for a DAC to settle after a reopen.
    func settle(milliseconds: Int)
    /// Drops what the device holds and moves the ring cursor back to what the listener has heard.
    func rewindToHeard()
    /// After a loss: the cursor back to the last position known heard.
    func rewindToReleased()
    func emit(_ event: OutputEvent)
}
