import FermataCore

/// One reading of the output's clock: at CLOCK_MONOTONIC `nanoseconds` the listener hears the ring's byte
/// `ringPosition` (the output thread's cursor less the device's delay, stamped by the device: `AudioSink.delayReading`).
/// Readings of one `epoch` lie on one line (the device's clock); a flush, a rewind, a device (re)opening or an underrun
/// (the device played silence: time went on, the heard position did not) starts a new epoch. Recording maps a loop
/// pass's first ring byte to the instant it is heard through a line fitted to these readings, and abandons a take an
/// underrun (`xruns`) cut into.
///
/// Published by the output thread after every period it writes (`PlaybackEngine.heardClock()`), read by any thread.
public struct HeardClockReading: Sendable, BitwiseCopyable, Equatable {
    public var ringPosition: Int
    public var bytesPerFrame: Int
    public var sampleRate: Int
    public var nanoseconds: UInt64
    public var epoch: Int
    /// Output underruns recovered since the engine started.
    public var xruns: Int

    public init(ringPosition: Int, bytesPerFrame: Int, sampleRate: Int, nanoseconds: UInt64, epoch: Int, xruns: Int = 0) {
        self.ringPosition = ringPosition
        self.bytesPerFrame = bytesPerFrame
        self.sampleRate = sampleRate
        self.nanoseconds = nanoseconds
        self.epoch = epoch
        self.xruns = xruns
    }

    /// The device frame heard (the ring position in frames).
    public var frame: Int64 { bytesPerFrame > 0 ? Int64(ringPosition / bytesPerFrame) : 0 }

    static let none = HeardClockReading(ringPosition: 0, bytesPerFrame: 0, sampleRate: 0, nanoseconds: 0, epoch: 0)
}

/// A place in the ring where what the listener hears begins anew — a track's start, a jump (a seek, the music after a
/// count-in) or a loop seam (the next pass) — pushed by the output thread when the listener reaches it, for the one
/// consumer that asked (`PlaybackEngine.observeHeardMarks`: the recording service).
public struct HeardMark: Sendable, BitwiseCopyable, Equatable {
    public enum Kind: UInt8, Sendable, BitwiseCopyable { case start, jump, seam }
    public var kind: Kind
    public var entryID: EntryID?
    /// The loop pass from here on, from 1.
    public var pass: Int
    /// The ring byte where it begins (a `HeardClockReading`'s `ringPosition` of the same epoch).
    public var ringPosition: Int
    public var bytesPerFrame: Int
    /// The source frame heard there, at `sourceRate`.
    public var sourceFrame: Int64
    public var sourceRate: Int
    /// Source frames per device frame from here (the tempo and rate conversion; 0 while a count-in holds the
    /// position).
    public var rateRatio: Double
    public var epoch: Int

    /// The device frame where it begins.
    public var frame: Int64 { bytesPerFrame > 0 ? Int64(ringPosition / bytesPerFrame) : 0 }

    static let none = HeardMark(kind: .start, entryID: nil, pass: 1, ringPosition: 0, bytesPerFrame: 0, sourceFrame: 0,
                                sourceRate: 0, rateRatio: 1, epoch: 0)
}
