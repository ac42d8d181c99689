import AudioCore
import Decoders
import FermataCore
import Synchronization

/// The decoder thread: owns the open decoders, converts to the device format and fills the ring ahead of the
/// listener; at the end of a track it opens the upcoming entry and keeps writing (gapless); at B it jumps to A with
/// a crossfade; it drives the flush handshake with the output thread for starts, seeks, stops and loop edits.
///
/// Threads: `run` is the decoder thread's body; `send` may be called from any thread (a mutex-protected mailbox —
/// the decoder thread is not real-time, so it may lock).
final class DecodeLoop: @unchecked Sendable {
    struct ActiveTrack {
        var item: PlayableItem
        var decoder: any AudioDecoder
        var format: AudioFormat
        var position: Int64
        var passes = 0
    }

    /// Where in the ring a piece of a track begins (the decoder's own copy of the marks it pushed).
    struct Segment {
        var position: Int
        var item: PlayableItem
        var sourceFrame: Int64
        var bytesPerFrame: Int
        var ratio: Double
    }

    let shared: EngineShared
    let config: EngineConfig
    let events: AsyncStream<EngineEvent>.Continuation
    private let mailbox = Mutex<[DecoderCommand]>([])

    var active: ActiveTrack?
    /// The entry whose successor we are waiting to be told (it ended or failed).
    var awaiting: EntryID?
    var upcoming: (after: EntryID, item: PlayableItem?)?
    var loop: (entry: EntryID, region: LoopRegion)?
    var trainer: SpeedTrainer?
    /// The count-in before each loop pass, if any.
    var passCountIn: CountInPlan?
    /// Count-ins and spoken words still to write before the music, in order (see `ClickTrack`).
    var inserts: [ClickTrack] = []
    let clickScratch: UnsafeMutablePointer<Float>
    /// Speech over the music, while it lasts.
    var overlay: SpeechOverlay?
    /// An announcement asked for while nothing played: spoken at the next start.
    var pendingAnnouncement: (speech: Speech, duck: Bool)?
    /// Words to speak when these entries begin (the player prepares them before it names the entry as upcoming).
    var trackAnnouncements: [EntryID: (speech: Speech, duck: Bool)] = [:]
    let overlayScratch: UnsafeMutablePointer<Float>
    let overlayBytes: UnsafeMutableRawPointer
    var device: AudioFormat?
    var generation = 0
    var markSerial = 0
    /// The newest `PlaybackEngine.start` handled; stamped on every mark pushed since.
    var startGeneration = 0
    var segments: [Segment] = []
    let converter: FormatConverter
    static let chunkFrames = 4096
    /// The loop seam's crossfade buffers hold `loopCrossfadeMilliseconds` at this rate; a faster stream gets a
    /// proportionally shorter fade (`DecodeLoop+Loop` clamps to the capacity).
    static let loopCrossfadeMaxRate = 192_000
    let decodeBuffer: UnsafeMutableRawPointer
    let crossfadeCapacity: Int
    let tailBuffer: UnsafeMutableRawPointer
    let headBuffer: UnsafeMutableRawPointer
    let mixBuffer: UnsafeMutableRawPointer

    init(shared: EngineShared, config: EngineConfig, events: AsyncStream<EngineEvent>.Continuation) {
        self.shared = shared
        self.config = config
        self.events = events
        converter = FormatConverter(maxFrames: Self.chunkFrames)
        let frameBytes = AudioFormat.maxBytesPerFrame, channels = AudioFormat.channelRange.upperBound
        decodeBuffer = .allocate(byteCount: Self.chunkFrames * frameBytes, alignment: 64)
        crossfadeCapacity = Self.loopCrossfadeMaxRate * max(0, config.loopCrossfadeMilliseconds) / 1000 + 1
        tailBuffer = .allocate(byteCount: crossfadeCapacity * frameBytes, alignment: 64)
        headBuffer = .allocate(byteCount: crossfadeCapacity * frameBytes, alignment: 64)
        mixBuffer = .allocate(byteCount: crossfadeCapacity * frameBytes, alignment: 64)
        clickScratch = .allocate(capacity: Self.chunkFrames * channels)
        overlayScratch = .allocate(capacity: Self.chunkFrames * channels)
        overlayBytes = .allocate(byteCount: Self.chunkFrames * AudioFormat.maxBytesPerFrame, alignment: 64)
    }

    deinit {
        decodeBuffer.deallocate()
        tailBuffer.deallocate()
        headBuffer.deallocate()
        mixBuffer.deallocate()
        clickScratch.deallocate()
        overlayScratch.deallocate()
        overlayBytes.deallocate()
    }

    /// Any thread: queues a command and wakes the decoder thread.
    func send(_ command: DecoderCommand) {
        mailbox.withLock { $0.append(command) }
        shared.decoderBell.ring()
    }

    func run() {
        while !shared.shutdown.load(ordering: .acquiring) {
            let commands = mailbox.withLock { queue -> [DecoderCommand] in
                defer { queue.removeAll(keepingCapacity: true) }
                return queue
            }
            for command in commands { handle(command) }
            if commands.isEmpty == false { continue }
            // Nothing to decode: every source of work (a command, shutdown) rings the bell, so sleep until it does —
            // no wake-ups while stopped. A full ring: the output thread rings at its low-water mark; the timeout is
            // only a safety net (one wake-up per 5 s while paused).
            guard active != nil else {
                shared.decoderBell.wait()
                continue
            }
            guard hasRoomToDecode() else {
                shared.decoderBell.wait(nanoseconds: 5_000_000_000)
                continue
            }
            step()
        }
    }

    private func handle(_ command: DecoderCommand) {
        switch command {
        case let .start(item, frame, generation, countIn):
            startGeneration = generation
            start(item, at: frame, countIn: countIn)
        case let .setPassCountIn(plan): passCountIn = plan
        case let .announce(speech, duck): announce(speech, duck: duck)
        case let .trackAnnouncement(entry, speech, duck): trackAnnouncements[entry] = (speech, duck)
        case let .setUpcoming(after, item): setUpcoming(after: after, item)
        case let .setLoop(entry, region): setLoop(entry: entry, region)
        case let .setTempo(tempo): changeTempo(tempo)
        case let .setTrainer(trainer):
            self.trainer = trainer
            active?.passes = 0
            if let trainer { changeTempo(trainer.start) }
        case .stop: stop()
        }
    }

    /// Whether the ring has room for another chunk within the decode-ahead limit; arms the low-water wake-up if not.
    private func hasRoomToDecode() -> Bool {
        guard let device else { return false }
        let lead = min(shared.ring.capacity / 2,
                       device.frames(forMilliseconds: config.decodeAheadMilliseconds) * device.bytesPerFrame)
        let filled = shared.ring.writePosition - shared.ring.releasedPosition
        if filled < lead { return true }
        shared.lowWaterBytes.store(lead / 2, ordering: .relaxed)
        return false
    }

    /// Decodes and writes one chunk of the active track (or performs the loop seam / the end-of-track hand-over).
    private func step() {
        if !inserts.isEmpty, writeClicks() { return }
        guard var track = active, let device else { return }
        let region = activeLoop(for: track)
        if let region, track.position >= region.end {
            loopSeam(region)
            return
        }
        var frames = Self.chunkFrames
        if let region { frames = min(frames, Int(region.end - track.position)) }
        let deviceRoom = shared.ring.freeBytes() / device.bytesPerFrame - stretchMargin
        frames = min(frames, Int(Double(deviceRoom) * converter.ratio))
        guard frames > 0 else {
            shared.decoderBell.wait(nanoseconds: 5_000_000)
            return
        }
        let buffer = UnsafeMutableRawBufferPointer(start: decodeBuffer, count: frames * track.format.bytesPerFrame)
        let n: Int
        do {
            n = try track.decoder.read(into: buffer)
        } catch {
            events.yield(.trackFailed(track.item.entryID, error.description))
            trackFinished()
            return
        }
        guard n > 0 else {
            trackFinished()
            return
        }
        writeConverted(decodeBuffer, frames: n)
        track.position += Int64(n)
        active = track
    }

    /// Device frames kept free beyond a chunk's expected output: the stretcher releases what it holds in bursts.
    var stretchMargin: Int { converter.stretching ? 16_384 : 4096 }

    /// The loop region in force for `track` on this pass, if any.
    func activeLoop(for track: ActiveTrack) -> LoopRegion? {
        guard let loop, loop.entry == track.item.entryID, loop.region.length > 0 else { return nil }
        if let limit = loop.region.repeatCount, track.passes >= limit { return nil }
        guard track.position <= loop.region.end else { return nil }
        return loop.region
    }

    /// Converts decoded frames to the device format and appends them to the ring.
    func writeConverted(_ frames: UnsafeRawPointer, frames count: Int) {
        converter.convert(frames, frames: count) { bytes in writeMixed(bytes) }
        shared.outputBell.ring()
    }

    /// Records a mark in the ring at the current write position.
    /// `ratio` overrides the source frames per device frame (0 during a count-in: the position holds still).
    func pushMark(_ kind: TrackMark.Kind, item: PlayableItem?, sourceFrame: Int64, sourceRate: Int,
                  ratio: Double? = nil) {
        markSerial += 1
        let position = shared.ring.writePosition
        let ratio = ratio ?? converter.ratio
        let mark = TrackMark(serial: markSerial, generation: startGeneration, position: position, kind: kind,
                             entryID: item?.entryID ?? -1,
                             sourceFrame: sourceFrame, sourceRate: Int32(sourceRate), rateRatio: ratio)
        while !shared.marks.push(mark) { shared.decoderBell.wait(nanoseconds: 5_000_000) }
        if let item, let device {
            segments.removeAll { $0.position >= position }
            segments.append(Segment(position: position, item: item, sourceFrame: sourceFrame,
                                    bytesPerFrame: device.bytesPerFrame, ratio: ratio))
            let released = shared.ring.releasedPosition
            while segments.count > 1 && segments[1].position <= released { segments.removeFirst() }
        }
        shared.outputBell.ring()
    }
}
