import AudioCore
import Glibc
import Synchronization

/// The run-time switch of the primary output (MPD `enableoutput`/`disableoutput` on the ALSA output).
///
/// Threads: any thread sets it; the output thread reads it at each period.
public final class OutputSwitch: Sendable {
    private let state: Atomic<Bool>
    public init(enabled: Bool) { state = Atomic(enabled) }
    public var enabled: Bool {
        get { state.load(ordering: .relaxed) }
        set { state.store(newValue, ordering: .relaxed) }
    }
}

/// The primary sink (the one that paces playback) with a paced null sink behind it: while the primary output is
/// switched off the null sink takes its place at the same format, so playback keeps real time and the secondary
/// outputs keep getting audio. Switching drains the old sink first (at most one device buffer), so no frame is lost
/// and the heard position stays exact.
///
/// Threads: the output thread only (it owns the sink); the switch is read with one relaxed atomic load per write.
public final class SwitchableSink: AudioSink {
    private let primary: any AudioSink
    private let standIn = PacedNullSink()
    private let control: OutputSwitch
    private var current: any AudioSink
    private var usingPrimary: Bool
    private var openedWith: (format: AudioFormat, periodFrames: Int, periods: Int)?
    private var nextAttempt = 0

    public init(primary: any AudioSink, control: OutputSwitch) {
        self.primary = primary
        self.control = control
        usingPrimary = control.enabled
        current = usingPrimary ? primary : standIn
    }

    public var name: String { primary.name }
    public var isOpen: Bool { current.isOpen }
    public var periodFrames: Int { current.periodFrames }
    public var delayFrames: Int { current.delayFrames }
    public var delayReading: (frames: Int, nanoseconds: UInt64) { current.delayReading }

    public func open(_ requested: AudioFormat, periodFrames: Int, periods: Int) throws(SinkOpenError) -> AudioFormat {
        close()
        usingPrimary = control.enabled
        current = usingPrimary ? primary : standIn
        let actual = try current.open(requested, periodFrames: periodFrames, periods: periods)
        openedWith = (actual, periodFrames, periods)
        return actual
    }

    public func close() {
        primary.close()
        standIn.close()
        openedWith = nil
    }

    public func write(_ buffer: UnsafeRawPointer, frames: Int) -> SinkWriteResult {
        if control.enabled != usingPrimary { switchOver() }
        return current.write(buffer, frames: frames)
    }

    public func pause(_ on: Bool) -> Bool { current.pause(on) }
    public func drop() { current.drop() }
    public func drain() { current.drain() }

    /// Moves to the other sink at the open format. The primary device may refuse (absent, or it cannot take the
    /// format the stream now has): then the stand-in keeps playing and the switch is retried every second.
    private func switchOver() {
        guard let opened = openedWith else { return }
        if usingPrimary {
            primary.drain()
            primary.close()
            _ = try? standIn.open(opened.format, periodFrames: opened.periodFrames, periods: opened.periods)
            current = standIn
            usingPrimary = false
            return
        }
        let now = Int(truncatingIfNeeded: MonotonicClock.nanoseconds())
        guard now >= nextAttempt else { return }
        nextAttempt = now + 1_000_000_000
        guard let actual = try? primary.open(opened.format, periodFrames: opened.periodFrames, periods: opened.periods),
              actual.isDeviceCompatible(with: opened.format) else {
            primary.close()
            return
        }
        standIn.drain()
        standIn.close()
        current = primary
        usingPrimary = true
    }

    /// Whether the primary device is the one playing now (false while switched off or refused).
    public var primaryActive: Bool { usingPrimary && current.isOpen }
}
