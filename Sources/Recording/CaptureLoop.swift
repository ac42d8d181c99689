import AudioCore
import Synchronization

/// The capture thread's work: read the capture device a period at a time into a preallocated buffer and append it to
/// the capture ring (`PCMRing`, single producer: this thread; single consumer: the take writer). What it publishes —
/// frames captured so far, overruns, the device lost — are atomics, so the thread never locks, allocates, logs or
/// does I/O other than the device read. A full ring (the writer fell behind on a slow disk) drops the period and
/// counts it: playback and capture never wait for the disk.
///
/// Threads: `run` on the capture thread (`WorkerThread`, realtime when allowed); the counters from any thread;
/// `stop` from the recording service.
public final class CaptureLoop: @unchecked Sendable {
    // @unchecked: the device and buffer are touched by the capture thread alone after `run` starts; everything else
    // shared is an atomic or the lock-free ring.
    public let ring: PCMRing
    private let device: CaptureDevice
    private let buffer: FixedBuffer<UInt8>
    private let frameBytes: Int
    private let periodFrames: Int
    /// Frames the device delivered since the start (dropped ones included: the timeline of the capture).
    public let capturedFrames = Atomic<Int>(0)
    /// Frames dropped because the ring was full, and device overruns recovered in place.
    public let droppedFrames = Atomic<Int>(0)
    public let overruns = Atomic<Int>(0)
    /// The ring byte after which frames were dropped (the first drop the writer has not handled yet; -1: none). The
    /// writer sets it back to -1 once it found the timeline again.
    public let gapPosition = Atomic<Int>(-1)
    /// The device's error when it went away (0: running).
    public let lostCode = Atomic<Int32>(0)
    private let stopping = Atomic<Bool>(false)
    /// Rung after every period written (the writer waits on it).
    public let written = Doorbell()
    /// The capture clock after every read: which capture frame the device takes in at which CLOCK_MONOTONIC instant
    /// (frames read plus those waiting in the device). Any thread reads it.
    public let clock = Seqlock(CaptureClockReading(frame: 0, nanoseconds: 0))

    /// `device` must be open. The ring holds `seconds` of capture.
    public init(device: CaptureDevice, seconds: Int = 4) {
        self.device = device
        let format = device.format ?? AudioFormat(sampleRate: 48_000, channels: 2, encoding: .s16)
        frameBytes = format.bytesPerFrame
        periodFrames = max(64, device.periodFrames)
        buffer = FixedBuffer(byteCount: periodFrames * frameBytes)
        ring = PCMRing(minimumCapacity: max(1, seconds) * format.sampleRate * frameBytes)
    }

    /// Reads until `stop` or the device is lost.
    public func run() {
        device.start()
        while !stopping.load(ordering: .relaxed) {
            switch device.read(into: buffer.raw, frames: periodFrames) {
            case let .read(frames):
                guard frames > 0 else { continue }
                let bytes = UnsafeRawBufferPointer(start: buffer.raw, count: frames * frameBytes)
                if ring.freeBytes() >= bytes.count {
                    _ = ring.write(bytes)
                } else {
                    droppedFrames.add(frames, ordering: .relaxed)
                    _ = gapPosition.compareExchange(expected: -1, desired: ring.writePosition, ordering: .releasing)
                }
                let total = capturedFrames.add(frames, ordering: .releasing).newValue
                let pending = device.pendingFrames()
                clock.publish(CaptureClockReading(frame: Int64(total + pending.frames), nanoseconds: pending.nanoseconds,
                                                  epoch: overruns.load(ordering: .relaxed)))
                written.ring()
            case .overrun:
                overruns.add(1, ordering: .relaxed)
            case let .lost(code):
                lostCode.store(code == 0 ? -1 : code, ordering: .releasing)
                written.ring()
                return
            }
        }
    }

    /// Asks the thread to end after its current read (at most a period).
    public func stop() { stopping.store(true, ordering: .relaxed) }
}
