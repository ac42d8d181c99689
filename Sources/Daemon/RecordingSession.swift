import AudioCore
import Engine
import Recording

/// One capture running: the capture device open at the output's rate, its thread and the take writer's, the two clock
/// lines and the plan that turns the passes heard into takes. Made by `RecordingService` when recording is on and the
/// output plays, ended when recording goes off, the output's rate changes or the device goes away.
///
/// Threads: made, driven (`poll`) and closed by the recording service's task only; the capture and writer threads
/// reach it through their own objects (`CaptureLoop`, `TakeWriter`), never this one.
final class RecordingSession: @unchecked Sendable {
    let device: CaptureDevice
    let loop: CaptureLoop
    let writer: TakeWriter
    let format: AudioFormat
    let latencyFrames: Int
    var plan: RecordingPlan
    /// The output's and the capture's clock lines.
    private var clocks: TakeClocks
    /// The capture's overruns and dropped frames last logged, and when (`lossSinceLastLook`).
    private var reportedLoss = (overruns: 0, dropped: 0)
    private var lossLogged: ContinuousClock.Instant?
    private let captureThread: WorkerThread
    private let writerThread: WorkerThread

    /// Opens `device` at `format`'s rate and starts both threads; throws the device's refusal in words.
    init(device name: String, format requested: AudioFormat, folder: TakeFolder, latencyFrames: Int, nextID: Int64,
         priority: WorkerThread.Priority, configText: String? = nil) throws(CaptureDevice.OpenError) {
        device = CaptureDevice(name: name, configText: configText)
        try device.open(AudioFormat(sampleRate: requested.sampleRate, channels: min(2, max(1, requested.channels)),
                                    encoding: .s16), periodFrames: max(64, requested.sampleRate / 100))
        format = device.format ?? requested
        loop = CaptureLoop(device: device, seconds: 4)
        writer = TakeWriter(loop: loop, folder: folder, format: format)
        self.latencyFrames = latencyFrames
        plan = RecordingPlan(nextID: nextID)
        clocks = TakeClocks(outputRate: requested.sampleRate, captureRate: format.sampleRate, latencyFrames: latencyFrames)
        let loop = self.loop, writer = self.writer
        captureThread = WorkerThread.started(name: "fermata-capture", priority: priority) { loop.run() }
        writerThread = WorkerThread.started(name: "fermata-takes", priority: .normal) { writer.run() }
    }

    /// The capture frame now (the capture clock's newest reading).
    var captureFrameNow: Int64 { loop.clock.read().frame }

    /// The device's error when it went away (nil: capturing).
    var lostCode: Int32? {
        let code = loop.lostCode.load(ordering: .acquiring)
        return code == 0 ? nil : code
    }

    /// Takes a reading of each clock; answers why the take being recorded must be abandoned when an xrun cut into it.
    func sampleClocks(heard: HeardClockReading) -> String? {
        clocks.sample(heard: heard, capture: loop.clock.read())
    }

    /// Where the listener's sound from `mark` arrives in the capture (`TakeClocks.captureFrame`).
    func captureFrame(for mark: HeardMark) -> Int64? { clocks.captureFrame(for: mark) }

    /// New overruns or dropped frames since the last report, as words for a notice; nil when there are none, or
    /// when one was reported less than 10 s ago (the count carries over to the next report).
    func lossSinceLastLook(now: ContinuousClock.Instant = .now) -> String? {
        let overruns = loop.overruns.load(ordering: .relaxed), dropped = loop.droppedFrames.load(ordering: .relaxed)
        guard (overruns, dropped) != reportedLoss else { return nil }
        if let lossLogged, now - lossLogged < .seconds(10) { return nil }
        reportedLoss = (overruns, dropped)
        lossLogged = now
        return "since the capture opened it ran over \(overruns) time\(overruns == 1 ? "" : "s") (the capture thread "
            + "was late: frames lost in the device) and dropped \(dropped) frames (a full take ring: the disk fell behind)"
    }

    /// Stops both threads (a take still open is abandoned by the writer) and closes the device.
    func close() {
        loop.stop()
        writer.stop()
        captureThread.join()
        writerThread.join()
        device.close()
    }
}
