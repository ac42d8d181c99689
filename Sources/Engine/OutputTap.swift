import AudioCore
import AudioOutput
import Glibc
import Synchronization

/// A secondary output (FIFO, command): it receives exactly the frames the primary device is handed, after volume,
/// through a preallocated lock-free ring, and its own thread converts them to the output's fixed format and writes
/// them without blocking. When the ring is full (a slow reader) or nobody is there to read (no FIFO reader, a dead
/// command) the frames for this output are dropped and counted; the audio thread never waits for it.
///
/// Threads: `feed` is called by the engine's output thread only (no lock, allocation, logging or I/O). `start` and
/// `stop` are called by the engine. `enabled`, `droppedFrames`, `writtenFrames` and `isConnected` may be read or set
/// from any thread.
public final class OutputTap: @unchecked Sendable {
    public let name: String
    /// The format written to the FIFO or command.
    public let format: AudioFormat
    private let shared: TapShared
    private var ring: PCMRing { shared.ring }
    private let thread = WorkerThread()
    private var drain: TapDrain?
    // Output thread only: the format of the last frames pushed (nil: a mark is due).
    private var fedFormat: AudioFormat?

    /// - Parameters:
    ///   - ringMilliseconds: how much audio the ring holds for a reader that falls behind (at 48 kHz, 8 bytes a frame).
    public init(name: String, format: AudioFormat, writer: any TapWriter, enabled: Bool, ringMilliseconds: Int = 1000,
                log: @escaping TapLog) {
        self.name = name
        self.format = format
        shared = TapShared(ringBytes: 48 * 8 * max(100, ringMilliseconds), enabled: enabled)
        drain = TapDrain(name: name, format: format, writer: writer, log: log)
    }

    public var enabled: Bool {
        get { shared.enabled.load(ordering: .relaxed) }
        set { shared.enabled.store(newValue, ordering: .relaxed); shared.bell.ring() }
    }
    /// Frames (at the device rate) that could not be delivered: ring full, no reader, command down.
    public var droppedFrames: Int { shared.dropped.load(ordering: .relaxed) }
    /// Frames (in `format`) written to the FIFO or command.
    public var writtenFrames: Int { shared.written.load(ordering: .relaxed) }
    /// Whether a reader (FIFO) or a running command is there now.
    public var isConnected: Bool { shared.connected.load(ordering: .relaxed) }

    // MARK: output thread

    /// Offers the frames just handed to the primary device. Output thread only.
    func feed(_ buffer: UnsafeRawPointer, frames: Int, format device: AudioFormat) {
        guard shared.enabled.load(ordering: .relaxed) else {
            fedFormat = nil
            return
        }
        if fedFormat != device {
            guard shared.marks.push(TapMark(position: ring.writePosition, format: device)) else {
                shared.dropped.add(frames, ordering: .relaxed)
                return
            }
            fedFormat = device
        }
        let bytes = frames * device.bytesPerFrame
        guard ring.freeBytes() >= bytes else {
            shared.dropped.add(frames, ordering: .relaxed)
            return
        }
        ring.write(UnsafeRawBufferPointer(start: buffer, count: bytes))
        shared.bell.ring()
    }

    // MARK: lifecycle

    func start() {
        guard let drain else { return }
        let shared = shared
        thread.start(name: "fermata-tap") { drain.run(shared) }
    }

    func stop() {
        guard !shared.stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        shared.bell.ring()
        thread.join()
        drain = nil
    }
}

/// What a tap's producer (the output thread) and its consumer (the tap thread) share: the ring, its format marks, the
/// doorbell and the counters.
///
/// Threads: the ring and the marks are single-producer (output thread) / single-consumer (tap thread); the rest are
/// atomics any thread may read.
final class TapShared: @unchecked Sendable {
    let ring: PCMRing
    let marks = SPSCQueue<TapMark>(capacity: 64, filler: TapMark())
    let bell = Doorbell()
    let enabled: Atomic<Bool>
    let stopping = Atomic<Bool>(false)
    let dropped = Atomic<Int>(0)
    let written = Atomic<Int>(0)
    let connected = Atomic<Bool>(false)

    init(ringBytes: Int, enabled: Bool) {
        ring = PCMRing(minimumCapacity: ringBytes)
        self.enabled = Atomic(enabled)
    }
}

/// A format change in a tap's ring: from `position` on, the bytes are in this device format.
struct TapMark: BitwiseCopyable {
    var position = 0
    var rate = 0
    var channels = 0
    var encoding: UInt8 = 0
    var validBits = 0

    init() {}
    init(position: Int, format: AudioFormat) {
        self.position = position
        rate = format.sampleRate
        channels = format.channels
        encoding = format.encoding.rawValue
        validBits = format.validBits
    }

    var format: AudioFormat {
        AudioFormat(sampleRate: rate, channels: channels, encoding: SampleEncoding(rawValue: encoding) ?? .s16,
                    validBits: validBits)
    }
}
