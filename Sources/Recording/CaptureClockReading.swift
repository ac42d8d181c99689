/// One reading of the capture device's clock: at CLOCK_MONOTONIC `nanoseconds` the device takes in capture frame
/// `frame` (frames read so far plus those waiting in the device, stamped by the device: `ALSAPosition`). Published by the capture thread
/// after every read (`CaptureLoop.clock`), read by the recording service.
public struct CaptureClockReading: Sendable, BitwiseCopyable, Equatable {
    public var frame: Int64
    public var nanoseconds: UInt64

    public init(frame: Int64, nanoseconds: UInt64) {
        self.frame = frame
        self.nanoseconds = nanoseconds
    }
}
