import AudioCore
import Decoders
import FermataCore
import Streams
import Synchronization

/// The decoder thread: the driver around `DecoderMachine`. It takes commands from a mailbox, asks the machine what
/// to do, and carries it out (`DecoderEnvironment`): the open decoder, the converter to the device format (tempo and
/// pitch included), the overlay stage (speech and the click over the track), the writes into the ring, the marks, and
/// the flush handshake with the output thread.
///
/// Threads: created by `PlaybackEngine` and handed to the decoder thread, which alone uses it from then on; other
/// threads reach it only through its `DecoderMailbox`.
final class DecodeLoop {
    private let shared: EngineShared
    private let config: EngineConfig
    private let events: AsyncStream<EngineEvent>.Continuation
    private let mailbox: DecoderMailbox
    private var machine: DecoderMachine

    /// The decoder open now, and the entry it belongs to.
    private struct OpenDecoder {
        var item: PlayableItem
        var decoder: any AudioDecoder
    }
    private var open: OpenDecoder?
    /// The network streams open (sessions with their own threads).
    private let live: LiveSources
    private let converter: FormatConverter
    private var timeline = RingTimeline()
    /// Speech and the click over the track, mixed after the converter.
    private let overlay: OverlayStage
    /// The BPM tag of the entry last asked for: read once per entry, for the count-in and the click alike.
    private var taggedBeat: (entry: EntryID, bpm: Double?)?
    private var markSerial = 0
    /// The flush handshake's request counter.
    private var flushGeneration = 0
    private let decodeBuffer: FixedBuffer<UInt8>
    private let tailBuffer: FixedBuffer<UInt8>
    private let headBuffer: FixedBuffer<UInt8>
    private let mixBuffer: FixedBuffer<UInt8>
    private let clickScratch: FixedBuffer<Float>
    /// The frames after B that push a stretched pass's last frames out (`finishPass`).
    private let lookahead: FixedBuffer<UInt8>
    /// 150 ms of them (SoundTouch needs 35–90 ms past a pass's end at 50–150 %), at most 32,768 frames.
    static func lookaheadFrames(rate: Int) -> Int { min(32_768, max(1, rate * 3 / 20)) }
    /// The loop seam's crossfade buffers hold `loopCrossfadeMilliseconds` at this rate; a faster stream gets a
    /// proportionally shorter fade.
    static let loopCrossfadeMaxRate = 192_000

    init(shared: EngineShared, config: EngineConfig, mailbox: DecoderMailbox,
         events: AsyncStream<EngineEvent>.Continuation) {
        self.shared = shared
        self.mailbox = mailbox
        self.config = config
        self.events = events
        var streams = config.streams
        // The ring keeps what the engine may splice back to: its decode-ahead and the device's buffer.
        streams.historyMilliseconds = max(streams.historyMilliseconds, config.decodeAheadMilliseconds + 1000)
        live = LiveSources(settings: streams, events: events)
        let chunk = DecoderMachine.chunkFrames
        converter = FormatConverter(maxFrames: chunk)
        let frameBytes = AudioFormat.maxBytesPerFrame, channels = AudioFormat.channelRange.upperBound
        let crossfadeCapacity = Self.loopCrossfadeMaxRate * max(0, config.loopCrossfadeMilliseconds) / 1000 + 1
        machine = DecoderMachine(formatPolicy: config.formatPolicy,
                                 loopCrossfadeMilliseconds: config.loopCrossfadeMilliseconds,
                                 crossfadeCapacity: crossfadeCapacity)
        decodeBuffer = FixedBuffer(byteCount: chunk * frameBytes)
        tailBuffer = FixedBuffer(byteCount: crossfadeCapacity * frameBytes)
        headBuffer = FixedBuffer(byteCount: crossfadeCapacity * frameBytes)
        mixBuffer = FixedBuffer(byteCount: crossfadeCapacity * frameBytes)
        clickScratch = FixedBuffer(zeroedCount: chunk * channels)
        lookahead = FixedBuffer(byteCount: 32_768 * frameBytes)
        overlay = OverlayStage(chunkFrames: chunk)
    }

    func run() {
        while !shared.shutdown.load(ordering: .acquiring) {
            let commands = mailbox.take()
            for command in commands { machine.handle(command, self) }
            if !live.isEmpty { closeUnheldStreams() }
            if commands.isEmpty == false { continue }
            if machine.isOpening {
                machine.step(self)
                continue
            }
            // Nothing to decode: every source of work (a command, shutdown) rings the bell, so sleep until it does —
            // no wake-ups while stopped. A full ring: the output thread rings at its low-water mark; the timeout is
            // only a safety net (one wake-up per 5 s while paused).
            guard machine.isDecoding else {
                shared.decoderBell.wait()
                continue
            }
            guard hasRoomToDecode() else {
                shared.decoderBell.wait(nanoseconds: 5_000_000_000)
                continue
            }
            machine.step(self)
        }
        live.keep { _ in false }
    }

    /// Closes the streams nobody needs: neither the machine (decoding, waiting for, or knowing it follows) nor the
    /// ring (still to be heard, so a splice may decode it again).
    private func closeUnheldStreams() {
        live.keep { machine.holds($0) || timeline.contains($0) }
    }

    /// Whether the ring has room for another chunk within the decode-ahead limit; arms the low-water wake-up if not.
    private func hasRoomToDecode() -> Bool {
        guard let device = machine.device else { return false }
        let lead = min(shared.ring.capacity / 2,
                       device.frames(forMilliseconds: config.decodeAheadMilliseconds) * device.bytesPerFrame)
        let filled = shared.ring.writePosition - shared.ring.releasedPosition
        if filled < lead { return true }
        shared.lowWaterBytes.store(lead / 2, ordering: .relaxed)
        return false
    }

    /// Device frames kept free beyond a chunk's expected output: the stretcher releases what it holds in bursts.
    private var stretchMargin: Int { converter.stretching ? 16_384 : 4096 }

    /// Converts decoded frames to the device format and appends them to the ring.
    private func writeConverted(_ frames: UnsafeRawPointer, frames count: Int) {
        converter.convert(frames, frames: count) { bytes in writeMixed(bytes) }
        shared.outputBell.ring()
    }

    /// Appends device-format bytes to the ring through the overlay stage (speech and clicks mixed in where they sound).
    private func writeMixed(_ bytes: UnsafeRawBufferPointer) {
        guard let device = converter.device else {
            let written = shared.ring.write(bytes)
            assert(written == bytes.count, "ring overflow: room was checked before decoding")
            return
        }
        overlay.process(bytes, device: device, sourceRate: converter.source?.sampleRate,
                        stretch: timeline.stretch(at: shared.ring.writePosition), taggedBPM: { taggedBPM(of: $0) },
                        write: { _ = shared.ring.write($0) })
    }

    /// Reads exactly `frames` frames, padding with silence past the end of the stream or on a decode error.
    private static func readFully(_ decoder: any AudioDecoder, into buffer: UnsafeMutableRawPointer, frames: Int,
                                  format: AudioFormat) {
        var done = 0
        while done < frames {
            let target = UnsafeMutableRawBufferPointer(start: buffer + done * format.bytesPerFrame,
                                                       count: (frames - done) * format.bytesPerFrame)
            guard let n = try? decoder.read(into: target), n > 0 else { break }
            done += n
        }
        if done < frames {
            SampleMath.silence(buffer + done * format.bytesPerFrame, frames: frames - done, format: format)
        }
    }
}

/// The real environment: the ring, the decoders, the converter and the output thread.
extension DecodeLoop: DecoderEnvironment {
    func flush(_ kind: FlushKind, open format: AudioFormat?) -> FlushAnswer {
        flushGeneration += 1
        let settle: Int
        if case let .follow(milliseconds) = config.formatPolicy { settle = milliseconds } else { settle = 0 }
        shared.handshake.request(FlushRequest(kind: kind, format: format, settleMilliseconds: settle),
                                 generation: flushGeneration)
        shared.outputBell.ring()
        var answer: FlushReply?
        while answer == nil {
            if shared.shutdown.load(ordering: .relaxed) { break }
            answer = shared.handshake.reply(to: flushGeneration)
            if answer == nil { shared.decoderBell.wait(nanoseconds: 20_000_000) }
        }
        let position = answer?.position ?? shared.ring.writePosition
        shared.ring.truncate(at: position)
        overlay.cut()  // what the ring held past `position` is gone, the click sounding in it too
        if kind == .close {
            timeline.removeAll()
            shared.lowWaterBytes.store(0, ordering: .relaxed)
        }
        return FlushAnswer(position: position, device: answer?.format, heard: timeline.source(at: position))
    }

    func resume() {
        shared.resumed.store(flushGeneration, ordering: .releasing)
        shared.outputBell.ring()
    }

    var outputIsClosed: Bool { shared.heard().state == .closed }
    var timelineIsEmpty: Bool { timeline.isEmpty }
    func timelineContains(_ entry: EntryID) -> Bool { timeline.contains(entry) }

    func openDecoder(_ item: PlayableItem, at frame: Int64?) throws(DecoderError) -> AudioFormat {
        do throws(DecoderError) {
            let decoder: any AudioDecoder
            if let open, open.item == item {
                decoder = open.decoder
            } else if item.isLive {
                guard let session = live.existing(item.entryID), let opened = LiveDecoder(session: session) else {
                    throw .unreadable(path: item.path, reason: "the stream is not connected")
                }
                decoder = opened
            } else {
                decoder = try DecoderRegistry.open(path: item.path)
            }
            if let frame { try decoder.seek(toFrame: frame) }
            open = OpenDecoder(item: item, decoder: decoder)
            return decoder.format
        } catch {
            open = nil
            throw error
        }
    }

    func closeDecoder() { open = nil }

    func seek(to frame: Int64) throws(DecoderError) {
        try open?.decoder.seek(toFrame: frame)
    }

    func liveReadiness(_ item: PlayableItem) -> LiveReadiness { live.readiness(item) }

    func waitForLive() { shared.decoderBell.wait(nanoseconds: 20_000_000) }

    var liveFrame: Int64 { (open?.decoder as? LiveDecoder)?.frame ?? 0 }

    /// The file's BPM tag, read once per entry (the count-in and the click both ask).
    func taggedBPM(of item: PlayableItem) -> Double? {
        if item.isLive { return nil }
        if let cached = taggedBeat, cached.entry == item.entryID { return cached.bpm }
        let bpm = (try? TagReader.read(path: item.path))?.bpm
        taggedBeat = (item.entryID, bpm)
        return bpm
    }

    func configureConverter(source: AudioFormat, device: AudioFormat, gain: Double) {
        converter.configure(source: source, device: device, gain: gain)
    }

    func resetConverter() { converter.reset() }
    func converterNeedsDrain(before source: AudioFormat) -> Bool { converter.needsFlush(before: source) }
    /// What the converter still holds is the track's last frames: through the overlay stage like the rest, so a click,
    /// spoken words or a take over them sound there too.
    func drainConverter() { converter.flush { writeMixed($0) } }
    func setConverterTempo(_ tempo: Double, continuous: Bool) { converter.setTempo(tempo, continuous: continuous) }
    func setConverterPitch(_ semitones: Double) { converter.setPitch(semitones) }

    func pushMark(_ request: MarkRequest, device: AudioFormat?) {
        markSerial += 1
        let position = shared.ring.writePosition
        let ratio = request.holdsPosition ? 0 : converter.ratio
        let mark = TrackMark(serial: markSerial, generation: request.generation, position: position,
                             kind: request.kind, entryID: request.point?.item.entryID,
                             sourceFrame: request.point?.frame ?? 0, sourceRate: Int32(clamping: request.sourceRate),
                             rateRatio: ratio, pass: Int32(clamping: request.pass))
        while !shared.marks.push(mark) { shared.decoderBell.wait(nanoseconds: 5_000_000) }
        if let point = request.point, let device {
            let anchor = RingTimeline.Anchor(position: position, sourceFrame: point.frame,
                                             bytesPerFrame: device.bytesPerFrame, ratio: ratio)
            timeline.append(anchor, item: point.item, released: shared.ring.releasedPosition)
        }
        if request.kind == .end { shared.lowWaterBytes.store(0, ordering: .relaxed) }
        shared.outputBell.ring()
    }

    func decode(maxFrames: Int, device: AudioFormat) -> DecodeOutcome {
        guard let open else { return .endOfStream }
        let deviceRoom = shared.ring.freeBytes() / device.bytesPerFrame - stretchMargin
        let frames = min(maxFrames, Int(Double(deviceRoom) * converter.ratio))
        guard frames > 0 else {
            shared.decoderBell.wait(nanoseconds: 5_000_000)
            return .written(frames: 0)
        }
        let format = open.decoder.format
        let buffer = UnsafeMutableRawBufferPointer(start: decodeBuffer.raw, count: frames * format.bytesPerFrame)
        let n: Int
        if let stream = open.decoder as? LiveDecoder {
            switch stream.readAvailable(into: buffer) {
            case let .frames(count): n = count
            case .waiting:
                // The network is behind: what the ring holds plays on; try again shortly (or on a command).
                waitForLive()
                return .written(frames: 0)
            case .ended: return .endOfStream
            case let .failed(reason): return .failed(reason)
            }
        } else {
            do {
                n = try open.decoder.read(into: buffer)
            } catch {
                return .failed(error.description)
            }
        }
        guard n > 0 else { return .endOfStream }
        writeConverted(decodeBuffer.raw, frames: n)
        return .written(frames: n)
    }

    func seamHasRoom(fadeFrames: Int, device: AudioFormat) -> Bool {
        let needed = (Int(Double(fadeFrames) / converter.ratio) + stretchMargin) * device.bytesPerFrame
        if shared.ring.freeBytes() >= needed { return true }
        shared.decoderBell.wait(nanoseconds: 5_000_000)
        return false
    }

    func readSeam(from start: Int64, fadeFrames: Int, format: AudioFormat) throws(DecoderError) {
        guard let decoder = open?.decoder else { return }
        if fadeFrames > 0 { Self.readFully(decoder, into: tailBuffer.raw, frames: fadeFrames, format: format) }
        try decoder.seek(toFrame: start)
        if fadeFrames > 0 { Self.readFully(decoder, into: headBuffer.raw, frames: fadeFrames, format: format) }
    }

    func finishPass(at end: Int64, format: AudioFormat) throws(DecoderError) {
        guard let decoder = open?.decoder else { return }
        let frames = Self.lookaheadFrames(rate: format.sampleRate)
        Self.readFully(decoder, into: lookahead.raw, frames: frames, format: format)
        try decoder.seek(toFrame: end)
        converter.finishPass(lookahead: lookahead.raw, frames: frames) { writeMixed($0) }
        shared.outputBell.ring()
    }

    func writeSeamCrossfade(fadeFrames: Int, format: AudioFormat) {
        EqualPowerCrossfade.mix(outgoing: tailBuffer.raw, incoming: headBuffer.raw, into: mixBuffer.raw,
                                frames: fadeFrames, format: format)
        writeConverted(mixBuffer.raw, frames: fadeFrames)
    }

    func writeInsert(_ insert: ClickTrack, device: AudioFormat) -> Int {
        let room = shared.ring.freeBytes() / device.bytesPerFrame - 1
        let frames = min(DecoderMachine.chunkFrames, insert.total - insert.written, max(0, room))
        guard frames > 0 else {
            shared.decoderBell.wait(nanoseconds: 5_000_000)
            return 0
        }
        let floats = clickScratch.base
        for i in 0..<frames {
            let value = insert.sample(at: insert.written + i, rate: device.sampleRate)
            for c in 0..<device.channels { floats[i * device.channels + c] = value }
        }
        SampleConversion.fromFloat(floats, frames: frames, to: device, into: decodeBuffer.raw)
        let bytes = UnsafeRawBufferPointer(start: decodeBuffer.raw, count: frames * device.bytesPerFrame)
        let written = shared.ring.write(bytes)
        assert(written == bytes.count, "ring overflow: room was checked")
        shared.outputBell.ring()
        return frames
    }

    func setOverlay(_ speech: SpeechOverlay?) { overlay.speech = speech }

    func setMetronome(_ setting: MetronomeSetting?) { overlay.setMetronome(setting) }

    func setTakeMix(_ mix: TakeMix?) { overlay.setTakeMix(mix) }

    func emit(_ event: EngineEvent) { events.yield(event) }
}
