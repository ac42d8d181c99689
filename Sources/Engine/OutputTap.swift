import AudioCore
import AudioOutput
import Glibc
import Synchronization

/// A secondary output (FIFO, command): it receives exactly the frames the primary device is handed, after volume,
/// through a preallocated lock-free ring, and its own thread converts them to the output's fixed format and writes
/// them without blocking. When the ring is full (a slow reader) or nobody is there to read (no FIFO reader, a dead
/// command) the frames for this output are dropped and counted; the audio thread never waits for it.
///
/// Threads: `start` and `stop` are called by the engine; `enabled`, `droppedFrames`, `writtenFrames` and
/// `isConnected` may be read or set from any thread. The output thread feeds it through its own `TapInlet`.
public final class OutputTap: Sendable {
    public let name: String
    /// The format written to the FIFO or command.
    public let format: AudioFormat
    let shared: TapShared
    private let thread = WorkerThread()
    /// The tap thread's body until `start` hands it over.
    private let drain: Mutex<TapDrain?>

    /// - Parameters:
    ///   - ringMilliseconds: how much audio the ring holds for a reader that falls behind (at 48 kHz, 8 bytes a frame).
    public init(name: String, format: AudioFormat, writer: sending any TapWriter, enabled: Bool, ringMilliseconds: Int = 1000,
                log: @escaping TapLog) {
        self.name = name
        self.format = format
        shared = TapShared(ringBytes: 48 * 8 * max(100, ringMilliseconds), enabled: enabled)
        drain = Mutex(TapDrain(name: name, format: format, writer: writer, log: log))
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

    // MARK: lifecycle

    func start() {
        guard let drain = drain.withLock({ $0.take() }) else { return }
        let shared = shared
        thread.start(name: "fermata-tap") { drain.run(shared) }
    }

    func stop() {
        guard !shared.stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        shared.bell.ring()
        thread.join()
    }
}

/// The output thread's end of one tap: offers it the frames just handed to the primary device, marking each format
/// change. Never locks, allocates, logs or does I/O.
///
/// Threads: the output thread only (owned by `OutputLoop`).
struct TapInlet {
    private let shared: TapShared
    /// The format of the last frames pushed (nil: a mark is due).
    private var fedFormat: AudioFormat?

    init(_ tap: OutputTap) { shared = tap.shared }

    mutating func feed(_ buffer: UnsafeRawPointer, frames: Int, format device: AudioFormat) {
        guard shared.enabled.load(ordering: .relaxed) else {
            fedFormat = nil
            return
        }
        if fedFormat != device {
            guard shared.marks.push(TapMark(position: shared.ring.writePosition, format: device)) else {
                shared.dropped.add(frames, ordering: .relaxed)
                return
            }
            fedFormat = device
        }
        let bytes = frames * device.bytesPerFrame
        guard shared.ring.freeBytes() >= bytes else {
            shared.dropped.add(frames, ordering: .relaxed)
            return
        }
        shared.ring.write(UnsafeRawBufferPointer(start: buffer, count: bytes))
        shared.bell.ring()
    }
}

/// What a tap's producer (the output thread) and its consumer (the tap thread) share: the ring, its format marks, the
/// doorbell and the counters.
///
/// Threads: the ring and the marks are single-producer (output thread) / single-consumer (tap thread); the rest are
/// atomics any thread may read.
final class TapShared: Sendable {
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
