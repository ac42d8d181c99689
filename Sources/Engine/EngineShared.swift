import AudioCore
import FermataCore
import Synchronization

/// What the decoder thread asks the output thread to do before new data follows (the flush handshake).
enum FlushKind: Sendable {
    /// Keep what the device holds; cut the ring at the output cursor (loop edits, queue edits).
    case splice
    /// Discard the device buffer and the ring at once (seek, start, skip).
    case drop
    /// Wait until everything queued has been handed to the device, drain it, reopen at a new format.
    case reopen
    /// Discard everything and close the device (stop).
    case close
}

/// A flush the decoder thread asks of the output thread.
struct FlushRequest: Sendable {
    var kind: FlushKind
    /// The format the device should be open at afterwards (nil: as it is).
    var format: AudioFormat?
    /// After a reopen, how long to wait for the DAC to settle.
    var settleMilliseconds: Int
}

/// The output thread's answer: where the ring now ends, and the device format (nil: closed).
struct FlushReply: Sendable {
    var position: Int
    var format: AudioFormat?
}

/// The flush handshake, one request at a time: the decoder thread posts a `FlushRequest` and waits for the
/// `FlushReply` to the same generation. One slot behind a `Mutex` (the handshake is off the steady path); the output
/// thread's steady path only loads `posted`, an atomic, and takes the lock when it differs from what it answered.
///
/// Threads: `request`/`reply` from the decoder thread; `pending`/`answer` from the output thread.
final class FlushHandshake: Sendable {
    private enum Slot {
        case empty
        case requested(generation: Int, FlushRequest)
        case answered(generation: Int, FlushReply)
    }

    private let slot = Mutex(Slot.empty)
    /// The generation of the newest request (released after the slot holds it).
    private let posted = Atomic<Int>(0)

    /// Decoder: posts a request.
    func request(_ request: FlushRequest, generation: Int) {
        slot.withLock { $0 = .requested(generation: generation, request) }
        posted.store(generation, ordering: .releasing)
    }

    /// Decoder: the answer to `generation`, once given.
    func reply(to generation: Int) -> FlushReply? {
        slot.withLock { slot in
            guard case let .answered(answered, reply) = slot, answered == generation else { return nil }
            return reply
        }
    }

    /// Output: the request not yet answered, if any (`answered`: the generation it answered last).
    func pending(answered: Int) -> (generation: Int, request: FlushRequest)? {
        guard posted.load(ordering: .acquiring) != answered else { return nil }
        return slot.withLock { slot in
            guard case let .requested(generation, request) = slot else { return nil }
            return (generation, request)
        }
    }

    /// Output: answers `generation`.
    func answer(_ reply: FlushReply, generation: Int) {
        slot.withLock { $0 = .answered(generation: generation, reply) }
    }
}

/// The state both audio threads share: the ring, the mark and event queues, the flush handshake, the transport
/// requests and the published position.
///
/// Threads: fields are documented with their single writer; everything else only reads. All cross-thread fields are
/// atomics, lock-free containers, or behind a `Mutex` (the flush handshake).
final class EngineShared: Sendable {
    let ring: PCMRing
    let marks = SPSCQueue<TrackMark>(capacity: 256, filler: .empty)            // decoder → output
    let events = SPSCQueue<OutputEvent>(capacity: 128, filler: .ended)         // output → monitor
    let outputBell = Doorbell()
    let decoderBell = Doorbell()
    let monitorBell = Doorbell()

    /// The flush handshake: the decoder asks, the output thread answers (see `FlushHandshake`).
    let handshake = FlushHandshake()
    /// Decoder: the generation whose new data is now in the ring.
    let resumed = Atomic<Int>(0)

    // Transport requests (any control thread writes; output reads).
    let pauseRequested = Atomic<Bool>(false)
    let volumeGainBits = Atomic<UInt64>(1.0.bitPattern)
    /// The fade apart from the volume (the timers' orders in, the output thread's reports out).
    let fades = FadeChannel()
    let shutdown = Atomic<Bool>(false)
    /// Decoder: below this many filled bytes the output thread wakes the decoder.
    let lowWaterBytes = Atomic<Int>(0)

    /// Published by the output thread (`publish`, one writer), read by any thread (`heard`).
    private let published = Seqlock(HeardPosition(state: .closed, entryID: nil, sourceFrame: 0, sourceRate: 0,
                                                  device: nil))
    let framesWritten = Atomic<Int>(0)
    /// CLOCK_MONOTONIC nanoseconds of the first frame handed to the device (0 until then).
    let firstFrameNanoseconds = Atomic<Int>(0)
    /// Output thread: the heard clock after each period (`HeardClockReading`), read by any thread.
    let heardClock = Seqlock(HeardClockReading.none)
    /// Output → the one observer (the recording service): the marks the listener reached, while `observingMarks`.
    let heardMarks = SPSCQueue<HeardMark>(capacity: 64, filler: .none)
    let observingMarks = Atomic<Bool>(false)

    init(ringBytes: Int) {
        ring = PCMRing(minimumCapacity: ringBytes)
    }

    /// Output thread only. Tested by `SeqlockStressTests` (PlayerTests).
    func publish(_ position: HeardPosition) { published.publish(position) }

    /// Any thread: a consistent copy of what the output thread last published.
    func heard() -> HeardPosition { published.read() }

    var volumeGain: Double {
        get { Double(bitPattern: volumeGainBits.load(ordering: .relaxed)) }
        set { volumeGainBits.store(newValue.bitPattern, ordering: .relaxed) }
    }
}

/// The output thread's lifecycle as published.
enum OutputState: Int, Sendable, BitwiseCopyable {
    case closed = 0
    case running = 1
    case paused = 2
    case waitingForDevice = 3
}

/// Where the listener is: the entry and source frame being heard now.
struct HeardPosition: Sendable, BitwiseCopyable {
    var state: OutputState
    var entryID: EntryID?
    var sourceFrame: Int64
    var sourceRate: Int
    var device: AudioFormat?
    /// The `start` generation of the mark the listener is in.
    var generation: Int = 0
    /// The loop pass heard, from 1 (loop seams heard since the entry started, plus one).
    var pass: Int32 = 1
}
