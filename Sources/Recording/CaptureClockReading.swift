/// One reading of the capture device's clock: at CLOCK_MONOTONIC `nanoseconds` the device takes in capture frame
/// `frame` (frames read so far plus those waiting in the device, stamped by the device: `ALSAPosition`). Readings of
/// one `epoch` lie on one line; an overrun starts a new one (the frames the device lost are not counted, so the count
/// falls behind the time). Published by the capture thread after every read (`CaptureLoop.clock`), read by the
/// recording service.
public struct CaptureClockReading: Sendable, BitwiseCopyable, Equatable {
    public var frame: Int64
    public var nanoseconds: UInt64
    /// The device's overruns before this reading.
    public var epoch: Int

    public init(frame: Int64, nanoseconds: UInt64, epoch: Int = 0) {
        self.frame = frame
        self.nanoseconds = nanoseconds
        self.epoch = epoch
    }
}
