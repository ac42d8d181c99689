import AudioCore
import AudioOutput
import FermataCore
import Glibc

/// The output thread: the only owner of the device. It copies PCM from the ring into a preallocated period buffer,
/// applies the volume ramp, writes to the sink, publishes the heard position and answers flush requests.
///
/// Threads: `run` is the body of the output thread; nothing else touches this object. On the steady path it neither
/// locks, allocates, logs nor does I/O other than the device write itself; device (re)opening happens only on
/// requests and after a device loss.
final class OutputLoop {
    let shared: EngineShared
    let sink: any AudioSink
    let config: EngineConfig
    /// Secondary outputs: each gets exactly the frames the sink accepted (after volume).
    let taps: [OutputTap]
    private var state = OutputState.closed
    private var format: AudioFormat?
    private var bytesPerFrame = 0
    private var cursor = 0
    private var marks = MarkList()
    private var announcedSerial = 0
    private var lastAck = 0
    private var hardwarePaused = false
    private var gain = 1.0
    private var rampTarget = 1.0
    private var rampStep = 0.0
    private let scratch: UnsafeMutableRawPointer
    private static let scratchFrames = 8192
    private static let maxFrameBytes = AudioFormat.maxBytesPerFrame

    init(shared: EngineShared, sink: any AudioSink, config: EngineConfig, taps: [OutputTap] = []) {
        self.shared = shared
        self.sink = sink
        self.config = config
        self.taps = taps
        scratch = .allocate(byteCount: Self.scratchFrames * Self.maxFrameBytes, alignment: 64)
        scratch.initializeMemory(as: UInt8.self, repeating: 0, count: Self.scratchFrames * Self.maxFrameBytes)
        gain = shared.volumeGain
        rampTarget = gain
    }

    deinit {
        scratch.deallocate()
        marks.deallocate()
    }

    func run() {
        while !shared.shutdown.load(ordering: .acquiring) {
            serviceFlush()
            servicePause()
            if drainMarks() && state != .running { publishPosition() }
            switch state {
            case .closed, .paused:
                shared.outputBell.wait()
            case .waitingForDevice:
                if !shared.outputBell.wait(nanoseconds: config.deviceRetryMilliseconds * 1_000_000) { reopenLostDevice() }
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
        guard state == .running, let format else { return }
        let boundary = nextBoundary()
        let available = min(shared.ring.readableBytes(from: cursor), boundary - cursor)
        let frames = min(available / bytesPerFrame, Self.scratchFrames, max(1, sink.periodFrames))
        guard frames > 0 else {
            shared.outputBell.wait(nanoseconds: 100_000_000)
            return
        }
        shared.ring.copy(from: cursor, into: scratch, count: frames * bytesPerFrame)
        applyVolume(frames: frames, format: format)
        switch sink.write(scratch, frames: frames) {
        case let .written(n):
            cursor += n * bytesPerFrame
            if n > 0 { for tap in taps { tap.feed(scratch, frames: n, format: format) } }
            if shared.framesWritten.add(n, ordering: .relaxed).oldValue == 0 && n > 0 {
                shared.firstFrameNanoseconds.store(Int(truncatingIfNeeded: MonotonicClock.nanoseconds()), ordering: .relaxed)
            }
        case .recovered:
            emit(.underrun, entry: -1)
        case .deviceLost, .failed:
            loseDevice()
        }
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

    private func publishPosition() {
        var heard = cursor
        if state == .running || state == .paused, sink.isOpen {
            heard = max(shared.ring.releasedPosition, cursor - sink.delayFrames * max(1, bytesPerFrame))
        } else {
            heard = min(cursor, shared.ring.releasedPosition)
        }
        shared.ring.release(upTo: heard)
        var position = HeardPosition(state: state, entryID: nil, sourceFrame: 0, sourceRate: 0, device: format)
        if let index = marks.lastIndex(atOrBefore: heard), bytesPerFrame > 0 {
            let mark = marks[index]
            position.entryID = mark.entryID
            position.sourceRate = Int(mark.sourceRate)
            let frames = Double((heard - mark.position) / bytesPerFrame) * mark.rateRatio
            position.sourceFrame = mark.sourceFrame + Int64(frames)
            position.generation = mark.generation
            if index > 0 && marks[index - 1].serial <= announcedSerial { marks.removeFirst(index) }
        }
        shared.publish(position)
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
            case .trackStart: emit(.trackAudible, entry: mark.entryID, generation: mark.generation)
            case .jump: break
            case .end: finishStream(); return
            }
        }
    }

    private func finishStream() {
        sink.drain()
        sink.close()
        state = .closed
        marks.removeFirst(marks.count)
        shared.ring.release(upTo: cursor)
        publishPosition()
        emit(.ended, entry: -1)
    }

    private func emit(_ kind: OutputEvent.Kind, entry: EntryID, generation: Int = 0) {
        shared.events.push(OutputEvent(kind: kind, entryID: entry, generation: generation))
        shared.monitorBell.ring()
    }

    // MARK: requests

    private func servicePause() {
        let wanted = shared.pauseRequested.load(ordering: .acquiring)
        if wanted && state == .running {
            hardwarePaused = sink.pause(true)
            if !hardwarePaused { rewindToHeard() }
            state = .paused
            publishPosition()
        } else if !wanted && state == .paused {
            if hardwarePaused && !sink.pause(false) { rewindToHeard() }
            hardwarePaused = false
            state = .running
            publishPosition()
        }
    }

    /// Drops what the device holds and moves the cursor back to what the listener has heard.
    private func rewindToHeard() {
        let heard = max(shared.ring.releasedPosition, cursor - sink.delayFrames * max(1, bytesPerFrame))
        sink.drop()
        cursor = heard
        shared.ring.release(upTo: heard)
    }

    private func loseDevice() {
        sink.close()
        cursor = shared.ring.releasedPosition
        hardwarePaused = false
        state = .waitingForDevice
        emit(.deviceLost, entry: -1)
    }

    private func reopenLostDevice() {
        guard let format else { return }
        guard let actual = try? sink.open(format, periodFrames: periodFrames(format), periods: config.periods),
              actual.isDeviceCompatible(with: format) else { sink.close(); return }
        state = shared.pauseRequested.load(ordering: .relaxed) ? .paused : .running
        hardwarePaused = false
        emit(.deviceRestored, entry: -1)
        publishPosition()
    }

    private func periodFrames(_ format: AudioFormat) -> Int {
        max(32, format.frames(forMilliseconds: config.periodMilliseconds))
    }

    /// Answers the decoder's flush request (see `FlushKind`).
    private func serviceFlush() {
        let request = shared.flushRequest.load(ordering: .acquiring)
        guard request != lastAck else { return }
        let kind = shared.requestedKind
        if kind == .reopen && shared.ring.readableBytes(from: cursor) > 0 && state == .running { return }
        switch kind {
        case .splice:
            break
        case .drop, .close:
            if sink.isOpen { sink.drop() }
            hardwarePaused = false
        case .reopen:
            if sink.isOpen { state == .running ? sink.drain() : sink.drop() }
        }
        shared.ring.release(upTo: cursor)
        if kind == .close || kind == .reopen {
            sink.close()
            state = .closed
        }
        if kind == .reopen, shared.requestedSettleMilliseconds > 0 {
            shared.outputBell.wait(nanoseconds: shared.requestedSettleMilliseconds * 1_000_000)
        }
        if let requested = shared.requestedFormat, kind != .close { openIfNeeded(requested) }
        while let stale = shared.marks.pop() {
            if stale.position < cursor && !marks.isFull { marks.append(stale) }
        }
        marks.truncate(at: cursor)
        shared.answerPosition = cursor
        shared.answerFormat = (sink.isOpen || state == .waitingForDevice) ? format : nil
        shared.answerDeviceOpen = sink.isOpen
        lastAck = request
        shared.flushAck.store(request, ordering: .releasing)
        shared.decoderBell.ring()
        publishPosition()
    }

    private func openIfNeeded(_ requested: AudioFormat) {
        let paused = shared.pauseRequested.load(ordering: .relaxed)
        if sink.isOpen && state != .closed {
            if state == .waitingForDevice { state = paused ? .paused : .running }
            return
        }
        do {
            let actual = try sink.open(requested, periodFrames: periodFrames(requested), periods: config.periods)
            format = actual
            state = paused ? .paused : .running
        } catch {
            format = requested
            state = .waitingForDevice
            emit(.deviceLost, entry: -1)
        }
        bytesPerFrame = format?.bytesPerFrame ?? 0
        hardwarePaused = false
    }
}
