import AudioCore
import Decoders
import FermataCore

/// Starts, stops, track hand-overs and the flush handshake (decoder thread only).
extension DecodeLoop {
    // MARK: flush handshake

    /// Asks the output thread to act (see `FlushKind`) and waits for its answer; afterwards the ring ends at the
    /// answered position and the output thread reads nothing until `resume()`.
    @discardableResult
    func requestFlush(_ kind: FlushKind, open format: AudioFormat?) -> Int {
        generation += 1
        shared.requestedKind = kind
        shared.requestedFormat = format
        if case let .follow(settle) = config.formatPolicy { shared.requestedSettleMilliseconds = settle }
        shared.flushRequest.store(generation, ordering: .releasing)
        shared.outputBell.ring()
        while shared.flushAck.load(ordering: .acquiring) != generation {
            if shared.shutdown.load(ordering: .relaxed) { return shared.ring.writePosition }
            shared.decoderBell.wait(nanoseconds: 20_000_000)
        }
        let position = shared.answerPosition
        shared.ring.truncate(at: position)
        device = kind == .close ? nil : shared.answerFormat
        return position
    }

    /// Lets the output thread read what was written since the last flush.
    func resume() {
        shared.resumed.store(generation, ordering: .releasing)
        shared.outputBell.ring()
    }

    // MARK: commands

    func start(_ item: PlayableItem, at frame: Int64, countIn: CountInPlan? = nil) {
        inserts.removeAll()
        overlay = nil
        if upcoming?.after != item.entryID { upcoming = nil }
        awaiting = nil
        let decoder: any AudioDecoder
        do throws(DecoderError) {
            if let active, active.item == item {
                decoder = active.decoder
            } else {
                decoder = try DecoderRegistry.open(path: item.path)
            }
            try decoder.seek(toFrame: max(0, frame))
        } catch {
            requestFlush(.drop, open: nil)
            active = nil
            resume()
            failed(item, error.description)
            return
        }
        let source = decoder.format
        let wanted = deviceFormat(for: source)
        let needsReopen = device.map { !$0.isDeviceCompatible(with: wanted) && isFollowing } ?? false
        requestFlush(needsReopen ? .reopen : .drop, open: wanted)
        converter.reset()
        begin(item, decoder: decoder, at: max(0, frame), kind: .trackStart)
        announcePending(item: item, at: max(0, frame), sourceRate: source.sampleRate)
        if let countIn { beginCountIn(countIn, item: item, at: max(0, frame), sourceRate: source.sampleRate) }
        resume()
    }

    func stop() {
        inserts.removeAll()
        overlay = nil
        requestFlush(.close, open: nil)
        active = nil
        awaiting = nil
        upcoming = nil
        segments.removeAll()
        shared.lowWaterBytes.store(0, ordering: .relaxed)
        converter.reset()
        resume()
    }

    func setUpcoming(after entry: EntryID, _ item: PlayableItem?) {
        if awaiting == entry {
            awaiting = nil
            advance(to: item)
            return
        }
        if active?.item.entryID == entry {
            upcoming = (entry, item)
            return
        }
        // The decoder already moved past `entry` into a successor the player no longer wants: splice at the cursor
        // if the listener is still in `entry`.
        guard let current = active, current.item.entryID != item?.entryID,
              segments.contains(where: { $0.item.entryID == entry }) else { return }
        let position = requestFlush(.splice, open: nil)
        if let (segmentItem, frame) = sourceAt(position), segmentItem.entryID == entry {
            reposition(segmentItem, at: frame, ringPosition: position)
            upcoming = (entry, item)
        } else if let (segmentItem, frame) = sourceAt(position) {
            reposition(segmentItem, at: frame, ringPosition: position)
        }
        resume()
    }

    func setLoop(entry: EntryID, _ region: LoopRegion?) {
        loop = region.map { (entry, $0) }
        active?.passes = 0
        guard let region, let current = active else { return }
        let decoderIsPast = current.item.entryID != entry || current.position > region.end
        guard decoderIsPast, segments.contains(where: { $0.item.entryID == entry }) else { return }
        let position = requestFlush(.splice, open: nil)
        if let (item, frame) = sourceAt(position) {
            reposition(item, at: frame, ringPosition: position)
            // B lies behind the cursor already: this one seam happens here, the next ones exactly at B.
            if let now = active, now.item.entryID == entry, now.position > region.end {
                loopSeam(LoopRegion(start: region.start, end: now.position))
            }
        }
        resume()
    }

    /// A new speed: what is heard continues from the heard position at the new tempo (a splice at the cursor).
    func changeTempo(_ tempo: Double) {
        guard tempo != converter.tempo else { return }
        guard !segments.isEmpty else {
            converter.setTempo(tempo)
            return
        }
        let position = requestFlush(.splice, open: nil)
        converter.setTempo(tempo)
        if let (item, frame) = sourceAt(position) {
            reposition(item, at: frame, ringPosition: position)
        }
        resume()
    }

    // MARK: hand-over

    /// The active track reached its end (or failed mid-stream).
    func trackFinished() {
        guard let finished = active?.item.entryID else { return }
        active = nil
        if let next = upcoming, next.after == finished {
            upcoming = nil
            advance(to: next.item)
        } else {
            awaiting = finished
        }
    }

    /// Continues the stream with `item`, gaplessly when the formats allow; ends the stream when nil.
    func advance(to item: PlayableItem?) {
        guard let item else {
            endStream()
            return
        }
        let decoder: any AudioDecoder
        do throws(DecoderError) {
            decoder = try DecoderRegistry.open(path: item.path)
        } catch {
            failed(item, error.description)
            return
        }
        let source = decoder.format
        if converter.needsFlush(before: source) { converter.flush { shared.ring.write($0) } }
        if device == nil {
            requestFlush(.drop, open: deviceFormat(for: source))
            begin(item, decoder: decoder, at: 0, kind: .trackStart)
            resume()
        } else if let device, isFollowing, !device.isDeviceCompatible(with: source) {
            requestFlush(.reopen, open: source)
            begin(item, decoder: decoder, at: 0, kind: .trackStart)
            resume()
        } else {
            begin(item, decoder: decoder, at: 0, kind: .trackStart)
        }
        announceTrackChange(item, sourceRate: source.sampleRate)
    }

    func begin(_ item: PlayableItem, decoder: any AudioDecoder, at frame: Int64, kind: TrackMark.Kind) {
        guard let device else { return }
        converter.configure(source: decoder.format, device: device, gain: item.replayGain)
        active = ActiveTrack(item: item, decoder: decoder, format: decoder.format, position: frame)
        pushMark(kind, item: item, sourceFrame: frame, sourceRate: decoder.format.sampleRate)
        if kind == .trackStart { events.yield(.decodingStarted(item.entryID)) }
    }

    func endStream() {
        converter.flush { shared.ring.write($0) }
        pushMark(.end, item: nil, sourceFrame: 0, sourceRate: 0)
        active = nil
        shared.lowWaterBytes.store(0, ordering: .relaxed)
    }

    func failed(_ item: PlayableItem, _ reason: String) {
        awaiting = item.entryID
        events.yield(.trackFailed(item.entryID, reason))
    }

    // MARK: helpers

    var isFollowing: Bool {
        if case .follow = config.formatPolicy { return true }
        return false
    }

    /// The format to open the device at for a stream starting with `source`.
    func deviceFormat(for source: AudioFormat) -> AudioFormat {
        if case let .fixed(format?) = config.formatPolicy { return format }
        if let device, !isFollowing, shared.heard().state != .closed { return device }
        return source
    }

    /// The item and source frame that ring position `position` holds, from the decoder's own segment list.
    func sourceAt(_ position: Int) -> (PlayableItem, Int64)? {
        guard let segment = segments.last(where: { $0.position <= position }) else { return nil }
        let frames = Double((position - segment.position) / max(1, segment.bytesPerFrame)) * segment.ratio
        return (segment.item, segment.sourceFrame + Int64(frames))
    }

    /// After a splice: continue decoding `item` from `frame`, which the ring position `ringPosition` holds.
    func reposition(_ item: PlayableItem, at frame: Int64, ringPosition: Int) {
        do throws(DecoderError) {
            let decoder: any AudioDecoder
            if let active, active.item == item {
                decoder = active.decoder
            } else {
                decoder = try DecoderRegistry.open(path: item.path)
            }
            try decoder.seek(toFrame: frame)
            converter.reset()
            let passes = active?.item == item ? active?.passes ?? 0 : 0
            begin(item, decoder: decoder, at: frame, kind: .jump)
            active?.passes = passes
        } catch {
            failed(item, error.description)
        }
    }
}
