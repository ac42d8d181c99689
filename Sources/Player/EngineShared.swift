import AudioCore
import FermataCore
import Synchronization

/// What the decoder thread asks the output thread to do before new data follows (the flush handshake).
enum FlushKind: Int {
    /// Keep what the device holds; cut the ring at the output cursor (loop edits, queue edits).
    case splice = 0
    /// Discard the device buffer and the ring at once (seek, start, skip).
    case drop = 1
    /// Wait until everything queued has been handed to the device, drain it, reopen at a new format.
    case reopen = 2
    /// Discard everything and close the device (stop).
    case close = 3
}

/// The state both audio threads share: the ring, the mark and event queues, the flush handshake, the transport
/// requests and the published position.
///
/// Threads: fields are documented with their single writer; everything else only reads. All cross-thread fields are
/// atomics or plain values ordered by an atomic's release/acquire (the handshake slots).
final class EngineShared: @unchecked Sendable {
    let ring: PCMRing
    let marks = SPSCQueue<TrackMark>(capacity: 256, filler: .empty)            // decoder → output
    let events = SPSCQueue<OutputEvent>(capacity: 128, filler: .empty)         // output → monitor
    let outputBell = Doorbell()
    let decoderBell = Doorbell()
    let monitorBell = Doorbell()

    // Flush handshake. Decoder writes the request slots, then `flushRequest` (release).
    var requestedKind = FlushKind.drop
    var requestedFormat: AudioFormat?
    var requestedSettleMilliseconds = 0
    let flushRequest = Atomic<Int>(0)
    // Output writes the answer slots, then `flushAck` (release).
    var answerPosition = 0
    var answerFormat: AudioFormat?
    var answerDeviceOpen = false
    let flushAck = Atomic<Int>(0)
    /// Decoder: the generation whose new data is now in the ring.
    let resumed = Atomic<Int>(0)

    // Transport requests (any control thread writes; output reads).
    let pauseRequested = Atomic<Bool>(false)
    let volumeGainBits = Atomic<UInt64>(1.0.bitPattern)
    let shutdown = Atomic<Bool>(false)
    /// Decoder: below this many filled bytes the output thread wakes the decoder.
    let lowWaterBytes = Atomic<Int>(0)

    // Published by the output thread (seqlock): one writer (`publish`), any number of readers (`heard`).
    // The fields are relaxed atomics (so a torn read is a retry, never undefined behaviour); `sequence` orders them.
    // Pairs it relies on (Boehm's seqlock):
    // - writer `sequence = odd` (relaxed), then a *releasing fence*, then the field stores: the fence orders the odd
    //   mark before every field store. It pairs with the reader's *acquiring fence* after its field loads: a reader
    //   that loaded any field of this publish is then guaranteed to see `sequence` ≠ its first (even) value, and
    //   retries.
    // - writer field stores, then `sequence = even` *releasing*; it pairs with the reader's first `sequence` load
    //   *acquiring*: a reader that sees the even value sees every field of that publish (or a later one, and then the
    //   re-check fails).
    // Tested by `SeqlockStressTests` (PlayerTests).
    private let sequence = Atomic<Int>(0)
    private let pubState = Atomic<Int>(0)
    private let pubEntry = Atomic<Int64>(-1)
    private let pubFrame = Atomic<Int64>(0)
    private let pubRate = Atomic<Int>(0)
    private let pubDeviceRate = Atomic<Int>(0)
    private let pubDeviceBits = Atomic<Int>(0)
    private let pubDeviceChannels = Atomic<Int>(0)
    private let pubGeneration = Atomic<Int>(0)
    let framesWritten = Atomic<Int>(0)
    /// CLOCK_MONOTONIC nanoseconds of the first frame handed to the device (0 until then).
    let firstFrameNanoseconds = Atomic<Int>(0)

    init(ringBytes: Int) {
        ring = PCMRing(minimumCapacity: ringBytes)
    }

    /// Output thread only.
    func publish(_ position: HeardPosition) {
        let s = sequence.load(ordering: .relaxed)
        sequence.store(s + 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        pubState.store(position.state.rawValue, ordering: .relaxed)
        pubEntry.store(position.entryID ?? -1, ordering: .relaxed)
        pubFrame.store(position.sourceFrame, ordering: .relaxed)
        pubRate.store(position.sourceRate, ordering: .relaxed)
        pubDeviceRate.store(position.device?.sampleRate ?? 0, ordering: .relaxed)
        pubDeviceBits.store(position.device.map { $0.encoding == .f32 ? -32 : $0.validBits } ?? 0, ordering: .relaxed)
        pubDeviceChannels.store(position.device?.channels ?? 0, ordering: .relaxed)
        pubGeneration.store(position.generation, ordering: .relaxed)
        sequence.store(s + 2, ordering: .releasing)
    }

    /// Any thread: a consistent copy of what the output thread last published.
    func heard() -> HeardPosition {
        while true {
            let s1 = sequence.load(ordering: .acquiring)
            if s1 & 1 == 1 { continue }
            let state = OutputState(rawValue: pubState.load(ordering: .relaxed)) ?? .closed
            let entry = pubEntry.load(ordering: .relaxed)
            let frame = pubFrame.load(ordering: .relaxed)
            let rate = pubRate.load(ordering: .relaxed)
            let deviceRate = pubDeviceRate.load(ordering: .relaxed)
            let bits = pubDeviceBits.load(ordering: .relaxed)
            let channels = pubDeviceChannels.load(ordering: .relaxed)
            let generation = pubGeneration.load(ordering: .relaxed)
            atomicMemoryFence(ordering: .acquiring)
            guard sequence.load(ordering: .relaxed) == s1 else { continue }
            var device: AudioFormat?
            if deviceRate > 0 {
                let encoding: SampleEncoding = bits < 0 ? .f32 : (bits <= 16 ? .s16 : .s32)
                device = AudioFormat(sampleRate: deviceRate, channels: channels, encoding: encoding, validBits: abs(bits))
            }
            return HeardPosition(state: state, entryID: entry < 0 ? nil : entry, sourceFrame: frame,
                                 sourceRate: rate, device: device, generation: generation)
        }
    }

    var volumeGain: Double {
        get { Double(bitPattern: volumeGainBits.load(ordering: .relaxed)) }
        set { volumeGainBits.store(newValue.bitPattern, ordering: .relaxed) }
    }
}

/// The output thread's lifecycle as published.
enum OutputState: Int, Sendable {
    case closed = 0
    case running = 1
    case paused = 2
    case waitingForDevice = 3
}

/// Where the listener is: the entry and source frame being heard now.
struct HeardPosition: Sendable {
    var state: OutputState
    var entryID: EntryID?
    var sourceFrame: Int64
    var sourceRate: Int
    var device: AudioFormat?
    /// The `start` generation of the mark the listener is in.
    var generation: Int = 0
}
