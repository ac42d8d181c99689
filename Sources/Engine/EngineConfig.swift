import AudioCore
import Streams

/// How the engine treats a change of sample format between tracks.
public enum FormatPolicy: Sendable, Hashable {
    /// Keep the device open at one format and convert every track to it (libsoxr for rate changes): no gap, no click.
    /// `nil` means "the format of the first track played after the device was closed".
    case fixed(AudioFormat?)
    /// Reopen the device at each track's own format, waiting `settleMilliseconds` after the reopen for DACs that must
    /// re-lock their clock (MPD's behaviour, with the gap it implies).
    case follow(settleMilliseconds: Int)
}

/// Engine settings; every value has a default suited to a Raspberry Pi.
public struct EngineConfig: Sendable {
    /// Output period in milliseconds (about 5 ms by default) and the number of periods in the device buffer.
    public var periodMilliseconds = 5
    public var periods = 4
    /// How far the decoder runs ahead of the listener.
    public var decodeAheadMilliseconds = 1500
    /// Ring size in bytes (bounds decode-ahead for high-rate, many-channel material).
    public var ringBytes = 4 << 20
    public var formatPolicy: FormatPolicy = .fixed(nil)
    /// Equal-power crossfade at the A–B loop seam, in milliseconds (0 = hard cut).
    public var loopCrossfadeMilliseconds = 5
    /// Volume ramp length in milliseconds (avoids zipper noise).
    public var volumeRampMilliseconds = 10
    /// SCHED_FIFO priority requested for the output thread (nil: do not ask).
    public var realtimePriority: Int32? = 40
    /// Retry interval while the device is missing.
    public var deviceRetryMilliseconds = 1000
    /// Network streams' buffer and bounds (their history is set to cover `decodeAheadMilliseconds`).
    public var streams = StreamSettings()

    public init() {}
}
