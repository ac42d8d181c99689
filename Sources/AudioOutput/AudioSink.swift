import AudioCore

/// The result of one write to a device, as a value (no Swift error is thrown on the real-time path).
public enum SinkWriteResult: Equatable, Sendable {
    /// This many frames were accepted (may be fewer than offered).
    case written(Int)
    /// An underrun or a suspend happened and the device was recovered in place; nothing was written.
    case recovered
    /// The device is gone (a USB DAC pulled out): ALSA's negative errno (`-ENODEV`, …; 0: no device was open);
    /// close it and retry opening later.
    case deviceLost(Int32)
    /// Another error (negative errno); treat like a lost device.
    case failed(Int32)
}

/// Why a device could not be opened.
public struct SinkOpenError: Error, Sendable, CustomStringConvertible {
    public var device: String
    public var reason: String
    /// The negative errno behind it (`-ENOENT`: no such card, `-EBUSY`: another program has it), 0 when none.
    public var code: Int32
    public init(device: String, reason: String, code: Int32 = 0) {
        self.device = device
        self.reason = reason
        self.code = code
    }
    public var description: String { "cannot open audio device \(device): \(reason)" }
}

/// A PCM output device.
///
/// Threads: every method is called by the output thread only (one owner); `open` and `close` may allocate and do I/O,
/// `write`, `pause`, `drop`, `delayFrames` and `delayReading` must not allocate or lock. `write` blocks at most about one period.
public protocol AudioSink: AnyObject {
    /// A human-readable name ("ALSA default", "paced null output").
    var name: String { get }
    /// Opens the device for `requested`; returns the format actually in use (the caller converts to it).
    func open(_ requested: AudioFormat, periodFrames: Int, periods: Int) throws(SinkOpenError) -> AudioFormat
    func close()
    var isOpen: Bool { get }
    /// Writes `frames` frames from `buffer`.
    func write(_ buffer: UnsafeRawPointer, frames: Int) -> SinkWriteResult
    /// Pauses or resumes in place; false when the device cannot (the caller drops instead).
    func pause(_ on: Bool) -> Bool
    /// Discards everything buffered, at once, and makes the device ready for new data: a paused device is left
    /// unpaused (ALSA's drop + prepare), which `OutputMachine` relies on after a flush while paused.
    func drop()
    /// Blocks until everything written has been played; the device is then ready and not paused.
    func drain()
    /// Frames written but not yet heard.
    var delayFrames: Int { get }
    /// Frames written but not yet heard, and the CLOCK_MONOTONIC instant that count holds at (the device's own stamp
    /// of its position where it gives one: `ALSAPosition`). The recording's clock line is fitted through these.
    var delayReading: (frames: Int, nanoseconds: UInt64) { get }
    /// Period size in frames chosen at open.
    var periodFrames: Int { get }
}

extension AudioSink {
    /// A device with no stamp of its own: the count, then the instant it was read.
    public var delayReading: (frames: Int, nanoseconds: UInt64) { (delayFrames, MonotonicClock.nanoseconds()) }
}
