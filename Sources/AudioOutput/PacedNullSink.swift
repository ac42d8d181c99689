import AudioCore
import Glibc

/// A device that plays nothing in real time: it behaves like a sound card with a `periods × periodFrames` buffer
/// drained by the monotonic clock, so pacing, delay, pause and drop act as on hardware. Used where the machine has no
/// sound card (`--output null`) and by benchmarks.
///
/// Threads: the output thread only.
public final class PacedNullSink: AudioSink {
    public let name = "paced null output (audio is discarded in real time)"
    private var rate = 44_100
    private var bufferFrames = 0
    public private(set) var periodFrames = 0
    private var buffered = 0.0          // frames in the simulated buffer at `stamp`
    private var stamp = 0.0             // seconds, monotonic
    private var paused = false
    public private(set) var isOpen = false
    /// Total frames accepted since open (for tests and benchmarks).
    public private(set) var framesAccepted = 0

    public init() {}

    public func open(_ requested: AudioFormat, periodFrames: Int, periods: Int) throws(SinkOpenError) -> AudioFormat {
        rate = requested.sampleRate
        self.periodFrames = periodFrames
        bufferFrames = periodFrames * periods
        buffered = 0
        stamp = MonotonicClock.seconds()
        paused = false
        isOpen = true
        return requested
    }

    public func close() { isOpen = false }

    public func write(_ buffer: UnsafeRawPointer, frames: Int) -> SinkWriteResult {
        advance()
        let needed = Double(min(frames, periodFrames))
        var space = Double(bufferFrames) - buffered
        if space < needed && !paused {
            // Sleep until the whole chunk fits (plus a little, so rounding never leaves it a frame short and the
            // output thread does not come back for crumbs): one wake-up per period, as with a sound card.
            MonotonicClock.sleep(seconds: (needed - space) / Double(rate) + 0.0002)
            advance()
            space = Double(bufferFrames) - buffered
        }
        let accepted = max(0, min(frames, Int(space)))
        if accepted == 0 && paused {
            // A full, paused device takes nothing: wait a period, as a blocked device would, so that a caller writing
            // anyway (the engine once did, from a SCHED_FIFO thread) waits instead of spinning a core.
            MonotonicClock.sleep(seconds: Double(max(1, periodFrames)) / Double(rate))
        }
        buffered += Double(accepted)
        framesAccepted += accepted
        return .written(accepted)
    }

    public func pause(_ on: Bool) -> Bool {
        advance()
        paused = on
        return true
    }

    /// As ALSA's drop + prepare: the buffer is emptied and the device is left ready, not paused. It used to stay
    /// paused, and the engine (which relies on that contract) then wrote to a paused device for ever: `write` accepts
    /// nothing while paused, so the output thread spun and playback stayed frozen at 0:00.
    public func drop() {
        buffered = 0
        paused = false
        stamp = MonotonicClock.seconds()
    }

    public func drain() {
        advance()
        MonotonicClock.sleep(seconds: paused ? 0 : buffered / Double(rate))
        buffered = 0
        paused = false
    }

    public var delayFrames: Int {
        advance()
        return Int(buffered)
    }

    private func advance() {
        let now = MonotonicClock.seconds()
        if !paused { buffered = max(0, buffered - (now - stamp) * Double(rate)) }
        stamp = now
    }
}
