import AudioCore
import AudioOutput
import FermataCore
import Glibc

/// The output thread: the only owner of the device, and the driver around `OutputMachine` (which decides the
/// device's lifecycle). It copies PCM from the ring into a preallocated period buffer, applies the volume ramp,
/// writes to the sink, publishes the heard position and answers flush requests.
///
/// Threads: `run` is the body of the output thread; nothing else touches this object. On the steady path it neither
/// locks, allocates, logs nor does I/O other than the device write itself; device (re)opening happens only on
/// requests and after a device loss.
final class OutputLoop {
    let shared: EngineShared
    let sink: any AudioSink
    let config: EngineConfig
    /// Secondary outputs: each gets exactly the frames the sink accepted (after volume).
    private var taps: [TapInlet]
    private var machine = OutputMachine()
    private var bytesPerFrame = 0
    private var cursor = 0
    private var marks = MarkList()
    private var announcedSerial = 0
    /// The newest loop seam whose pass was announced as heard (at the heard position, not when written).
    private var heardSeamSerial = 0
    /// The newest mark pushed to `heardMarks`, and the heard clock's epoch (a new one at each rewind or flush).
    private var heardMarkSerial = 0
    private var clockEpoch = 1
    /// Underruns recovered so far (published with the heard clock).
    private var xruns = 0
    private var lastAck = 0
    private var gain = 1.0
    private var rampTarget = 1.0
    private var rampStep = 0.0
    /// The fade apart from the volume (`OutputFade`), and the order word it last took.
    private var fade = FadeRamp()
    private var fadeTaken: UInt64 = 0
    private let scratchBuffer = FixedBuffer<UInt8>(byteCount: OutputLoop.scratchFrames * AudioFormat.maxBytesPerFrame)
    private var scratch: UnsafeMutableRawPointer { scratchBuffer.raw }
    private static let scratchFrames = 8192

    init(shared: EngineShared, sink: any AudioSink, config: EngineConfig, taps: [OutputTap] = []) {
        self.shared = shared
        self.sink = sink
        self.config = config
        self.taps = taps.map(TapInlet.init)
        gain = shared.volumeGain
        rampTarget = gain
    }

    func run() {
        while !shared.shutdown.load(ordering: .acquiring) {
            serviceFlush()
            servicePause()
            serviceFade()
            if drainMarks() && machine.phase != .running { publishPosition() }
            switch machine.phase {
            case .closed, .paused:
                shared.outputBell.wait()
            case .waitingForDevice:
                if !shared.outputBell.wait(nanoseconds: config.deviceRetryMilliseconds * 1_000_000),
                   machine.retryDevice(paused: shared.pauseRequested.load(ordering: .relaxed), self) {
                    publishPosition()
                }
            case .running:
                if shared.resumed.load(ordering: .acquiring) != lastAck {
                    shared.outputBell.wait(nanoseconds: 2_000_000)
                } else {
                    playOnePeriod()
                }
            }
        }
        sink.close()
    }

    // MARK: steady state

    private func playOnePeriod() {
        announceMarks()
        guard machine.phase == .running, let format = machine.format else { return }
        let boundary = nextBoundary()
        let available = min(shared.ring.readableBytes(from: cursor), boundary - cursor)
        let frames = min(available / bytesPerFrame, Self.scratchFrames, max(1, sink.periodFrames))
        guard frames > 0 else {
            shared.outputBell.wait(nanoseconds: 100_000_000)
            return
        }
        shared.ring.copy(from: cursor, into: scratch, count: frames * bytesPerFrame)
        applyVolume(frames: frames, format: format)
        if !fade.isUnity, fade.apply(scratch, frames: frames, format: format) { reportFade() }
        let result = sink.write(scratch, frames: frames)
        switch result {
        case let .written(n):
            cursor += n * bytesPerFrame
            if n > 0 { for i in taps.indices { taps[i].feed(scratch, frames: n, format: format) } }
            if shared.framesWritten.add(n, ordering: .relaxed).oldValue == 0 && n > 0 {
                shared.firstFrameNanoseconds.store(Int(truncatingIfNeeded: MonotonicClock.nanoseconds()), ordering: .relaxed)
            }
        case .recovered:
            // The device played silence meanwhile: the heard position stood still while time went on.
            xruns += 1
            clockEpoch += 1
        case .deviceLost, .failed:
            break
        }
        machine.wrote(result, self)
        publishPosition()
    }

    private func applyVolume(frames: Int, format: AudioFormat) {
        let target = shared.volumeGain
        if target != rampTarget {
            rampTarget = target
            let rampFrames = max(1, format.frames(forMilliseconds: config.volumeRampMilliseconds))
            rampStep = (target - gain) / Double(rampFrames)
        }
        if gain == rampTarget {
            if gain != 1 { SampleMath.applyGain(scratch, frames: frames, format: format, from: gain, to: gain) }
            return
        }
        var end = gain + rampStep * Double(frames)
        if (rampStep > 0 && end > rampTarget) || (rampStep < 0 && end < rampTarget) || rampStep == 0 { end = rampTarget }
        SampleMath.applyGain(scratch, frames: frames, format: format, from: gain, to: end)
        gain = end
    }

    /// Takes a new fade order; a fade to silence lets go once the output has paused, stopped or closed (so a fade
    /// ordered just before a stop does not wait for the next play).
    private func serviceFade() {
        let posted = shared.fades.posted()
        if posted != fadeTaken {
            fadeTaken = posted
            if let order = FadeOrder(bits: posted) {
                fade.take(order)
                reportFade()
            }
        }
        switch machine.phase {
        case .closed, .paused: if fade.release() { shared.fades.report(serial: fade.serial, .released) }
        case .running, .waitingForDevice: break
        }
    }

    private func reportFade() { shared.fades.report(serial: fade.serial, fade.state) }

    private func publishPosition() {
        var heard = cursor
        if machine.phase == .running || machine.published == .paused, sink.isOpen {
            let delay = sink.delayReading  // one reading: the count and its instant (the device's stamp)
            heard = max(shared.ring.releasedPosition, cursor - delay.frames * max(1, bytesPerFrame))
            if machine.phase == .running, let format = machine.format {
                shared.heardClock.publish(HeardClockReading(
                    ringPosition: heard, bytesPerFrame: bytesPerFrame, sampleRate: format.sampleRate,
                    nanoseconds: delay.nanoseconds, epoch: clockEpoch, xruns: xruns))
            }
        } else {
            heard = min(cursor, shared.ring.releasedPosition)
        }
        shared.ring.release(upTo: heard)
        var position = HeardPosition(state: machine.published, entryID: nil, sourceFrame: 0, sourceRate: 0,
                                     device: machine.format)
        var spent = 0
        if let index = marks.lastIndex(atOrBefore: heard), bytesPerFrame > 0 {
            let mark = marks[index]
            position.entryID = mark.entryID
            position.sourceRate = Int(mark.sourceRate)
            position.sourceFrame = mark.anchor(bytesPerFrame: bytesPerFrame).sourceFrame(at: heard)
            position.generation = mark.generation
            position.pass = mark.pass
            if index > 0 && marks[index - 1].serial <= announcedSerial { spent = index }
        }
        shared.publish(position)
        // After the publish: whoever the event wakes reads the new pass.
        announceHeardSeams(upTo: heard)
        if spent > 0 { marks.removeFirst(spent) }
        if shared.ring.writePosition - heard < shared.lowWaterBytes.load(ordering: .relaxed) { shared.decoderBell.ring() }
    }

    // MARK: marks

    /// Moves new marks from the decoder's queue into the private list; true when there were any (so a paused output
    /// can publish where the listener now is: a seek while paused, a resume that starts paused).
    @discardableResult
    private func drainMarks() -> Bool {
        var any = false
        while !marks.isFull, let mark = shared.marks.pop() {
            marks.append(mark)
            any = true
        }
        return any
    }

    private func nextBoundary() -> Int {
        var boundary = marks.nextPosition(after: cursor) ?? Int.max
        if marks.isFull, let pending = shared.marks.peek() { boundary = min(boundary, pending.position) }
        return boundary
    }

    private func announceMarks() {
        for i in 0..<marks.count {
            let mark = marks[i]
            guard mark.position <= cursor, mark.serial > announcedSerial else { continue }
            announcedSerial = mark.serial
            switch mark.kind {
            case .trackStart: if let entry = mark.entryID { emit(.trackAudible(entry, generation: mark.generation)) }
            case .jump: break
            case .seam: break  // announced when heard (`announceHeardSeams`): the page reads the pass then
            case .end: finishStream(); return
            }
        }
    }

    /// Tells the player of each loop seam the listener has now reached: the new pass is then what `status` says
    /// (a seam announced when written, a device buffer earlier, read as the old pass).
    private func announceHeardSeams(upTo heard: Int) {
        let observing = shared.observingMarks.load(ordering: .relaxed)
        for i in 0..<marks.count {
            let mark = marks[i]
            guard mark.position <= heard else { break }
            if observing, mark.serial > heardMarkSerial, mark.kind != .end {
                heardMarkSerial = mark.serial
                let kind: HeardMark.Kind = switch mark.kind {
                case .trackStart: .start
                case .seam: .seam
                case .jump, .end: .jump
                }
                // A full queue drops the mark: the observer then misses a pass (never the audio).
                _ = shared.heardMarks.push(HeardMark(
                    kind: kind, entryID: mark.entryID, pass: Int(mark.pass), ringPosition: mark.position,
                    bytesPerFrame: bytesPerFrame, sourceFrame: mark.sourceFrame, sourceRate: Int(mark.sourceRate),
                    rateRatio: mark.rateRatio, epoch: clockEpoch))
            }
            if mark.kind == .seam, mark.serial > heardSeamSerial, let entry = mark.entryID {
                heardSeamSerial = mark.serial
                emit(.passHeard(entry, pass: mark.pass))
            }
        }
    }

    private func finishStream() {
        machine.streamEnded(self)
        marks.removeFirst(marks.count)
        shared.ring.release(upTo: cursor)
        publishPosition()
        emit(.ended)
    }

    // MARK: requests

    private func servicePause() {
        if machine.setPaused(shared.pauseRequested.load(ordering: .acquiring), self) { publishPosition() }
    }

    private func periodFrames(_ format: AudioFormat) -> Int {
        max(32, format.frames(forMilliseconds: config.periodMilliseconds))
    }

    /// Answers the decoder's flush request (see `FlushKind`).
    private func serviceFlush() {
        guard let (generation, request) = shared.handshake.pending(answered: lastAck),
              machine.canFlush(request.kind, ringHasData: shared.ring.readableBytes(from: cursor) > 0) else { return }
        shared.ring.release(upTo: cursor)
        let format = machine.flush(request, paused: shared.pauseRequested.load(ordering: .relaxed), self)
        bytesPerFrame = machine.format?.bytesPerFrame ?? 0
        while let stale = shared.marks.pop() {
            if stale.position < cursor && !marks.isFull { marks.append(stale) }
        }
        marks.truncate(at: cursor)
        clockEpoch += 1
        lastAck = generation
        shared.handshake.answer(FlushReply(position: cursor, format: format), generation: generation)
        shared.decoderBell.ring()
        publishPosition()
    }
}

/// The real environment: the sink, the ring cursor and the event queue.
extension OutputLoop: OutputEnvironment {
    var deviceIsOpen: Bool { sink.isOpen }

    func openDevice(_ format: AudioFormat) -> Result<AudioFormat, SinkOpenError> {
        clockEpoch += 1
        do {
            return .success(try sink.open(format, periodFrames: periodFrames(format), periods: config.periods))
        } catch {
            return .failure(error)
        }
    }

    func closeDevice() { sink.close() }
    func pauseDevice(_ on: Bool) -> Bool { sink.pause(on) }
    func dropDevice() { sink.drop() }
    func drainDevice() { sink.drain() }
    func settle(milliseconds: Int) { shared.outputBell.wait(nanoseconds: milliseconds * 1_000_000) }

    func rewindToHeard() {
        let heard = max(shared.ring.releasedPosition, cursor - sink.delayFrames * max(1, bytesPerFrame))
        sink.drop()
        cursor = heard
        clockEpoch += 1
        shared.ring.release(upTo: heard)
    }

    func rewindToReleased() { cursor = shared.ring.releasedPosition }

    func emit(_ event: OutputEvent) {
        shared.events.push(event)
        shared.monitorBell.ring()
    }
}
