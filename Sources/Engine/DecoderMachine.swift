import AudioCore
import Decoders
import FermataCore

/// The decoder side of the playback engine as one value: what is being decoded (`Phase`: nothing, a track with its
/// successor once known, or a finished track waiting for one), the device format the ring is written at, the tempo,
/// the loop practice settings and the inserts still to write before the music. It takes the player's commands and
/// the results of each decoding step, and acts only through a `DecoderEnvironment` — so every decision (gapless
/// hand-over, seam, splice, count-in, stop) is tested with no thread, device or file (`DecoderMachineTests`).
///
/// Threads: owned by `DecodeLoop`, used on the decoder thread only.
struct DecoderMachine {
    enum Phase: Equatable {
        /// Nothing to decode: never started, stopped, or the stream's end is written (the output plays the rest).
        case idle
        /// Decoding a track; `next` is what follows it once the player has said.
        case decoding(Cursor, next: Successor)
        /// This entry ended or failed; the stream goes on when the player says what follows it.
        case awaitingSuccessor(after: EntryID)
        /// A network stream is connecting and filling its buffer; it starts (or follows the track before it) once
        /// audio is in.
        case opening(Opening)
    }

    /// A network stream waited for, and how it begins once ready.
    struct Opening: Equatable {
        enum How: Equatable {
            /// As `start` does: what was heard before is gone (a command started it).
            case start(countIn: CountInPlan?)
            /// After the track before it, as `advance` does.
            case advance
        }

        var item: PlayableItem
        var how: How
        var next: Successor
    }

    /// Where the decoder is in a track.
    struct Cursor: Equatable {
        var item: PlayableItem
        var format: AudioFormat
        /// The next source frame the decoder reads.
        var position: Int64
        /// Loop seams passed since the loop was set.
        var passes = 0
        /// The part of the file the entry plays (nil: all of it, once).
        var span: SpanFrames?
    }

    /// What follows the track being decoded.
    enum Successor: Equatable {
        case unknown
        /// The player said: this item (nil: the stream ends after the track).
        case known(PlayableItem?)
    }

    /// How the device format follows the tracks (`EngineConfig.formatPolicy`).
    let formatPolicy: FormatPolicy
    let loopCrossfadeMilliseconds: Int
    /// How many frames the environment's crossfade buffers hold.
    let crossfadeCapacity: Int
    /// The most frames one decode step reads.
    static let chunkFrames = 4096

    private(set) var phase = Phase.idle
    /// The format the ring is written at (nil: the device is closed).
    private(set) var device: AudioFormat?
    /// Playback speed (1 = normal); the converter follows it.
    private(set) var tempo = 1.0
    /// The listener's speed: entries without a tempo of their own play at it (`tempo` differs while one with its own
    /// plays).
    private(set) var listenerTempo = 1.0
    /// Which entry's own tempo the listener overrode (`EntryTempo`, the rule the player's state applies too).
    private var entryTempo = EntryTempo()
    /// Transposition in semitones (0 = none); the converter follows it.
    private(set) var pitch = 0.0
    /// The click over the track (the environment mixes it; the count-in lines up with its grid).
    private(set) var metronome: MetronomeSetting?
    private(set) var practice = LoopPractice()
    /// Count-ins and spoken words still to write before the music, in order.
    private(set) var inserts: [ClickTrack] = []
    private var announcements = PendingAnnouncements()
    /// The newest `PlaybackEngine.start` handled; stamped on every mark asked for since.
    private(set) var startGeneration = 0

    init(formatPolicy: FormatPolicy, loopCrossfadeMilliseconds: Int, crossfadeCapacity: Int) {
        self.formatPolicy = formatPolicy
        self.loopCrossfadeMilliseconds = loopCrossfadeMilliseconds
        self.crossfadeCapacity = crossfadeCapacity
    }

    /// Whether a step has anything to do (a track to decode, a stream to wait for).
    var isDecoding: Bool {
        switch phase {
        case .decoding, .opening: true
        case .idle, .awaitingSuccessor: false
        }
    }

    /// Whether a step waits for a network stream (it needs no room in the ring).
    var isOpening: Bool {
        if case .opening = phase { return true }
        return false
    }

    /// Whether the machine holds on to `entry`: decodes it, knows it follows, or waits for it.
    func holds(_ entry: EntryID) -> Bool {
        let (current, next): (EntryID, Successor)
        switch phase {
        case .idle, .awaitingSuccessor: return false
        case let .decoding(cursor, successor): (current, next) = (cursor.item.entryID, successor)
        case let .opening(opening): (current, next) = (opening.item.entryID, opening.next)
        }
        if current == entry { return true }
        if case let .known(item?) = next { return item.entryID == entry }
        return false
    }

    // MARK: commands

    mutating func handle(_ command: DecoderCommand, _ env: some DecoderEnvironment) {
        switch command {
        case let .start(item, frame, generation, countIn):
            startGeneration = generation
            start(item, at: max(0, frame), countIn: countIn, env)
        case let .setPassCountIn(plan): practice.passCountIn = plan
        case let .announce(speech, duck): announce(.init(speech: speech, duck: duck), env)
        case let .trackAnnouncement(entry, speech, duck): announcements.prepare(.init(speech: speech, duck: duck), for: entry)
        case let .setUpcoming(after, item): setUpcoming(after: after, item, env)
        case let .setLoop(entry, region): setLoop(entry: entry, region, env)
        case let .setTempo(tempo):
            listenerTempo = tempo
            // A network stream plays at its own pace: the listener's tempo applies from the next file on.
            if case let .decoding(cursor, _) = phase, cursor.item.isLive { return }
            changeTempo(tempo, env)
            if case let .decoding(cursor, _) = phase {
                entryTempo.listenerChanged(current: cursor.item.entryID, hasOwnTempo: cursor.item.ownTempo != nil)
            }
        case let .setPitch(semitones): changePitch(semitones, env)
        case let .setMetronome(setting):
            metronome = setting
            env.setMetronome(setting)
        case let .setTakeMix(mix): env.setTakeMix(mix)
        case let .setTrainer(plan):
            practice.trainer = plan.map(StepTrainer.init)
            resetPasses()
            if let start = practice.trainer?.tempo {
                listenerTempo = start
                changeTempo(start, env)
            }
        case .trainerAgain: practice.trainer?.again()
        case .stop: stop(env)
        }
    }

    /// Plays `item` from `frame`, discarding what the ring and device hold (start, skip, seek). The successor already
    /// known survives a seek within the same entry.
    private mutating func start(_ item: PlayableItem, at frame: Int64, countIn: CountInPlan?,
                                _ env: some DecoderEnvironment) {
        inserts.removeAll()
        env.setOverlay(nil)
        var next = Successor.unknown
        if case let .decoding(cursor, known) = phase, cursor.item.entryID == item.entryID { next = known }
        if case let .opening(opening) = phase, opening.item.entryID == item.entryID { next = opening.next }
        if item.isLive {
            switch env.liveReadiness(item) {
            case .pending:
                // Nothing is heard while it connects: the device closes, and opens at the stream's format.
                flush(.close, open: nil, env)
                env.resume()
                phase = .opening(Opening(item: item, how: .start(countIn: countIn), next: next))
                return
            case let .failed(reason):
                flush(.drop, open: nil, env)
                env.resume()
                failed(item, reason, env)
                return
            case .ready:
                break
            }
        }
        let source: AudioFormat
        // A stream has no position to go back to: it plays from what is buffered.
        var frame = frame
        do throws(DecoderError) {
            source = try env.openDecoder(item, at: item.isLive ? nil : frame)
            if item.isLive { frame = env.liveFrame }
        } catch {
            flush(.drop, open: nil, env)
            env.resume()
            failed(item, error.description, env)
            return
        }
        // An entry playing part of its file starts no earlier than its span.
        if let span = item.span.map({ SpanFrames($0, rate: source.sampleRate) }), frame < span.start {
            do throws(DecoderError) {
                try env.seek(to: span.start)
                frame = span.start
            } catch {
                flush(.drop, open: nil, env)
                env.resume()
                failed(item, error.description, env)
                return
            }
        }
        let wanted = deviceFormat(for: source, env)
        let needsReopen = device.map { !$0.isDeviceCompatible(with: wanted) && isFollowing } ?? false
        flush(needsReopen ? .reopen : .drop, open: wanted, env)
        env.resetConverter()
        begin(SourcePoint(item: item, frame: frame), source: source, kind: .trackStart, next: next, env)
        if let words = announcements.takeForStart() { place(words, at: SourcePoint(item: item, frame: frame),
                                                            sourceRate: source.sampleRate, env) }
        if let countIn { beginCountIn(countIn, at: SourcePoint(item: item, frame: frame), sourceRate: source.sampleRate, env) }
        env.resume()
    }

    private mutating func stop(_ env: some DecoderEnvironment) {
        inserts.removeAll()
        env.setOverlay(nil)
        flush(.close, open: nil, env)
        phase = .idle
        env.closeDecoder()
        env.resetConverter()
        env.resume()
    }

    private mutating func setUpcoming(after entry: EntryID, _ item: PlayableItem?, _ env: some DecoderEnvironment) {
        switch phase {
        case .awaitingSuccessor(entry):
            advance(to: item, env)
        case let .decoding(cursor, _) where cursor.item.entryID == entry:
            phase = .decoding(cursor, next: .known(item))
        case let .decoding(cursor, _):
            // The decoder already moved past `entry` into a successor the player no longer wants: splice at the
            // listener's position if it is still in `entry`.
            // (The same entry with another span or gain is another item: `rangeid` on the entry queued next.)
            guard cursor.item != item, env.timelineContains(entry) else { return }
            if let heard = flush(.splice, open: nil, env).heard {
                reposition(heard, env)
                if case let .decoding(now, _) = phase, now.item.entryID == entry {
                    phase = .decoding(now, next: .known(item))
                }
            }
            env.resume()
        case var .opening(opening) where opening.item.entryID == entry:
            opening.next = .known(item)
            phase = .opening(opening)
        case .idle, .awaitingSuccessor, .opening:
            return
        }
    }

    private mutating func setLoop(entry: EntryID, _ region: LoopRegion?, _ env: some DecoderEnvironment) {
        let replacing = practice.setting?.entry == entry && practice.setting?.region != region
        practice.set(entry: entry, region)
        resetPasses()
        guard case let .decoding(cursor, _) = phase, env.timelineContains(entry) else { return }
        // The decoder runs ahead of the listener: with a loop already on this entry, a seam it wrote for the old
        // region would still jump back after the change was answered (a clear, a nudged B); a new B behind the cursor
        // was never met. Either way, decode again from the heard frame.
        let decoderIsPast = region.map { cursor.item.entryID != entry || cursor.position > $0.end } ?? false
        guard replacing || decoderIsPast else { return }
        if let heard = flush(.splice, open: nil, env).heard {
            reposition(heard, env)
            // B lies behind the cursor already: this one seam happens here, the next ones exactly at B.
            if let region, case let .decoding(now, _) = phase, now.item.entryID == entry, now.position > region.end {
                _ = loopSeam(LoopRegion(start: region.start, end: now.position), env)
            }
        }
        env.resume()
    }

    /// A new speed: what is heard continues from the heard position at the new tempo (a splice at the cursor).
    private mutating func changeTempo(_ newTempo: Double, _ env: some DecoderEnvironment) {
        guard newTempo != tempo else { return }
        splice(env) { machine, env in machine.setTempo(newTempo, continuous: false, env) }
    }

    /// A new transposition: what is heard continues from the heard position in the new key (a splice at the cursor).
    private mutating func changePitch(_ semitones: Double, _ env: some DecoderEnvironment) {
        guard semitones != pitch else { return }
        splice(env) { machine, env in
            machine.pitch = semitones
            env.setConverterPitch(semitones)
        }
    }

    /// Changes how audio is converted so that it is heard within a few milliseconds: drops what the ring holds past
    /// the heard position, applies `change`, and decodes on from the heard position (nothing heard yet: just applies).
    private mutating func splice<Env: DecoderEnvironment>(_ env: Env, _ change: (inout DecoderMachine, Env) -> Void) {
        guard !env.timelineIsEmpty else {
            change(&self, env)
            return
        }
        let answer = flush(.splice, open: nil, env)
        change(&self, env)
        if let heard = answer.heard { reposition(heard, env) }
        env.resume()
    }

    /// Speaks now at the heard position (over the music or before it), or at the next start when nothing plays.
    private mutating func announce(_ words: PendingAnnouncements.Words, _ env: some DecoderEnvironment) {
        guard device != nil, !env.timelineIsEmpty else {
            announcements.holdForNextStart(words)
            return
        }
        if let heard = flush(.splice, open: nil, env).heard {
            reposition(heard, env)
            let rate = if case let .decoding(cursor, _) = phase { cursor.format.sampleRate } else { device?.sampleRate ?? 0 }
            place(words, at: heard, sourceRate: rate, env)
        }
        env.resume()
    }

    // MARK: one step of the steady path

    /// Writes the next piece of the stream: an insert, a loop seam, a chunk of the track, or the hand-over at its end.
    mutating func step(_ env: some DecoderEnvironment) {
        if case let .opening(opening) = phase {
            awaitLive(opening, env)
            return
        }
        if !inserts.isEmpty, writeInsert(env) { return }
        guard case .decoding(var cursor, let next) = phase, let device else { return }
        let region = cursor.item.isLive ? nil
            : practice.region(entry: cursor.item.entryID, position: cursor.position, passes: cursor.passes)
                ?? cursor.span?.loop(position: cursor.position, seams: cursor.passes)
        if let region, cursor.position >= region.end {
            _ = loopSeam(region, env)
            return
        }
        // The span's end is the track's end: the hand-over to the next entry happens there, gaplessly.
        let end = cursor.span?.end
        if let end, cursor.position >= end {
            trackFinished(env)
            return
        }
        var frames = Self.chunkFrames
        if let region { frames = min(frames, Int(region.end - cursor.position)) }
        if let end { frames = min(frames, Int(end - cursor.position)) }
        switch env.decode(maxFrames: frames, device: device) {
        case let .written(n):
            cursor.position += Int64(n)
            phase = .decoding(cursor, next: next)
        case .endOfStream:
            trackFinished(env)
        case let .failed(reason):
            env.emit(.trackFailed(cursor.item.entryID, reason))
            trackFinished(env)
        }
    }

    /// At B: the crossfade of the frames after B with those from A, continuing at A + fade, so every pass is exactly
    /// B − A frames long (a plain jump with no fade); with a count-in before each pass, the clicks instead. False
    /// when the ring had no room yet.
    private mutating func loopSeam(_ region: LoopRegion, _ env: some DecoderEnvironment) -> Bool {
        guard case .decoding(var cursor, let next) = phase, let device else { return false }
        let fade = LoopPractice.fadeFrames(milliseconds: loopCrossfadeMilliseconds, format: cursor.format,
                                          capacity: crossfadeCapacity, region: region)
        guard env.seamHasRoom(fadeFrames: fade, device: device) else { return false }
        let countIn = practice.seamCountIn
        do throws(DecoderError) {
            // Exact passes: at a tempo or in another key the stretcher gives what it owes for this pass and starts
            // the next afresh, so a pass at tempo t is exactly its source frames / t and the seam's mark lands where
            // the pass is heard to begin (the click over the track and the heard pass with it).
            if tempo != 1 || pitch != 0 { try env.finishPass(at: region.end, format: cursor.format) }
            if countIn != nil {
                try env.seek(to: region.start)
            } else {
                try env.readSeam(from: region.start, fadeFrames: fade, format: cursor.format)
            }
        } catch {
            env.emit(.trackFailed(cursor.item.entryID, error.description))
            trackFinished(env)
            return true
        }
        let resume = SourcePoint(item: cursor.item, frame: region.start)
        if countIn != nil {
            // The pass ends exactly at B, the clicks follow, then A (no crossfade: the clicks are the break).
            env.drainConverter()
            env.resetConverter()
            trainAtSeam(entry: cursor.item.entryID, nextPass: cursor.passes + 2, env)
            cursor.position = region.start
        } else {
            trainAtSeam(entry: cursor.item.entryID, nextPass: cursor.passes + 2, env)
            mark(.seam, resume, sourceRate: cursor.format.sampleRate, pass: cursor.passes + 2, env)
            if fade > 0 { env.writeSeamCrossfade(fadeFrames: fade, format: cursor.format) }
            cursor.position = region.start + Int64(fade)
        }
        cursor.passes += 1
        phase = .decoding(cursor, next: next)
        if let countIn { beginCountIn(countIn, at: resume, sourceRate: cursor.format.sampleRate, seam: true, env) }
        return true
    }

    /// The step trainer's change at a seam, if any: pass `nextPass` plays at its tempo (the listener's from then on).
    private mutating func trainAtSeam(entry: EntryID, nextPass: Int, _ env: some DecoderEnvironment) {
        guard let next = practice.trainedTempo() else { return }
        listenerTempo = next
        // Not continuous: the seam left the stretcher empty, so at 100 % the path is the untouched one again.
        setTempo(next, continuous: false, env)
        env.emit(.tempoChanged(next, entry: entry, pass: nextPass))
    }

    /// Writes the next chunk of the first insert; true while inserts remain.
    private mutating func writeInsert(_ env: some DecoderEnvironment) -> Bool {
        guard var insert = inserts.first, let device else { return false }
        insert.written += env.writeInsert(insert, device: device)
        if insert.written < insert.total {
            inserts[0] = insert
            return true
        }
        inserts.removeFirst()
        // The next insert holds the position again at once (its mark overrides this one at the same place).
        mark(.jump, insert.resume, sourceRate: insert.sourceRate, holds: !inserts.isEmpty, env)
        return !inserts.isEmpty
    }

    /// A step while a stream connects: waits a little, begins it once audio is in, or moves on when it failed.
    private mutating func awaitLive(_ opening: Opening, _ env: some DecoderEnvironment) {
        switch env.liveReadiness(opening.item) {
        case .pending:
            env.waitForLive()
        case let .failed(reason):
            failed(opening.item, reason, env)
        case .ready:
            switch opening.how {
            case let .start(countIn):
                start(opening.item, at: 0, countIn: countIn, env)
            case .advance:
                phase = .idle
                advance(to: opening.item, env)
                if case let .decoding(cursor, .unknown) = phase, case .known = opening.next {
                    phase = .decoding(cursor, next: opening.next)
                }
            }
        }
    }

    // MARK: hand-over

    /// The track being decoded reached its end (or failed mid-stream).
    private mutating func trackFinished(_ env: some DecoderEnvironment) {
        guard case let .decoding(cursor, next) = phase else { return }
        env.closeDecoder()
        if case let .known(item) = next {
            phase = .idle
            advance(to: item, env)
        } else {
            phase = .awaitingSuccessor(after: cursor.item.entryID)
        }
    }

    /// Continues the stream with `item`, gaplessly when the formats allow; ends the stream when nil.
    private mutating func advance(to item: PlayableItem?, _ env: some DecoderEnvironment) {
        guard let item else {
            env.drainConverter()
            mark(.end, nil, sourceRate: 0, env)
            phase = .idle
            return
        }
        if item.isLive {
            switch env.liveReadiness(item) {
            case .pending:
                // What is in the ring plays out meanwhile.
                phase = .opening(Opening(item: item, how: .advance, next: .unknown))
                return
            case let .failed(reason):
                failed(item, reason, env)
                return
            case .ready:
                break
            }
        }
        let source: AudioFormat
        let first: Int64
        do throws(DecoderError) {
            source = try env.openDecoder(item, at: nil)
            first = item.isLive ? env.liveFrame : item.span.map { SpanFrames($0, rate: source.sampleRate).start } ?? 0
            if first > 0, !item.isLive { try env.seek(to: first) }
        } catch {
            failed(item, error.description, env)
            return
        }
        // Another tempo from here on (an entry with its own, or the listener's again after one): what the stretcher
        // holds of this track is written first, and the next starts clean (at the listener's 100 %, bit-exact).
        let tempoChanges = tempo(for: item) != tempo
        if env.converterNeedsDrain(before: source) || tempoChanges { env.drainConverter() }
        if tempoChanges { env.resetConverter() }
        let start = SourcePoint(item: item, frame: first)
        if device == nil {
            flush(.drop, open: deviceFormat(for: source, env), env)
            begin(start, source: source, kind: .trackStart, next: .unknown, env)
            env.resume()
        } else if let device, isFollowing, !device.isDeviceCompatible(with: source) {
            flush(.reopen, open: source, env)
            begin(start, source: source, kind: .trackStart, next: .unknown, env)
            env.resume()
        } else {
            begin(start, source: source, kind: .trackStart, next: .unknown, env)
        }
        if let words = announcements.take(for: item.entryID) { place(words, at: start, sourceRate: source.sampleRate, env) }
    }

    private mutating func begin(_ point: SourcePoint, source: AudioFormat, kind: TrackMark.Kind, next: Successor,
                                _ env: some DecoderEnvironment) {
        guard let device else {
            phase = .idle
            env.closeDecoder()
            return
        }
        env.configureConverter(source: source, device: device, gain: point.item.replayGain)
        // A new entry plays at its own tempo or the listener's (before its first mark: the mark carries the rate).
        if kind == .trackStart {
            entryTempo.entered(point.item.entryID)
            let wanted = tempo(for: point.item)
            if wanted != tempo { setTempo(wanted, continuous: false, env) }
        }
        let span = point.item.span.map { SpanFrames($0, rate: source.sampleRate) }
        phase = .decoding(Cursor(item: point.item, format: source, position: point.frame, span: span), next: next)
        mark(kind, point, sourceRate: source.sampleRate, env)
        if kind == .trackStart { env.emit(.decodingStarted(point.item.entryID)) }
    }

    /// After a splice: continues decoding at `point`, which the ring's new end holds (loop passes and the known
    /// successor kept when it is the same entry).
    private mutating func reposition(_ point: SourcePoint, _ env: some DecoderEnvironment) {
        var passes = 0, next = Successor.unknown
        if case let .decoding(cursor, known) = phase, cursor.item == point.item { (passes, next) = (cursor.passes, known) }
        let source: AudioFormat
        var point = point
        do throws(DecoderError) {
            source = try env.openDecoder(point.item, at: point.frame)
            // A stream goes back only as far as its ring still holds.
            if point.item.isLive { point.frame = env.liveFrame }
        } catch {
            failed(point.item, error.description, env)
            return
        }
        env.resetConverter()
        begin(point, source: source, kind: .jump, next: next, env)
        if case .decoding(var cursor, let next) = phase {
            cursor.passes = passes
            phase = .decoding(cursor, next: next)
        }
    }

    private mutating func failed(_ item: PlayableItem, _ reason: String, _ env: some DecoderEnvironment) {
        phase = .awaitingSuccessor(after: item.entryID)
        env.closeDecoder()
        env.emit(.trackFailed(item.entryID, reason))
    }

    // MARK: inserts

    /// Clicks before the music at `point`: the position stays there while they play (a mark with no source
    /// advance), then the music follows in the next device frame.
    /// `seam`: the count-in before a loop pass (its mark says a pass begins there).
    private mutating func beginCountIn(_ plan: CountInPlan, at point: SourcePoint, sourceRate: Int, seam: Bool = false,
                                       _ env: some DecoderEnvironment) {
        guard let device, plan.beats > 0 else { return }
        let tagged = plan.bpm == nil || metronome != nil
            ? env.taggedBPM(of: point.item).flatMap { CountInPlan.bpmRange.contains($0) ? $0 : nil } : nil
        // With the click over the track on, the count-in is on its grid: at its beat, and the music's next beat comes
        // one beat after the last click (the count-in is shorter by the time from the resume point to that beat).
        let beat = metronome?.beat(for: point.item.entryID, tagged: tagged)
        let bpm = (beat?.bpm ?? plan.bpm ?? tagged ?? plan.fallbackBPM) * tempo
        mark(seam ? .seam : .jump, point, sourceRate: sourceRate, holds: true, env)
        var clicks = ClickTrack.countIn(beats: plan.beats, bpm: bpm, deviceRate: device.sampleRate, resume: point,
                                        sourceRate: sourceRate)
        if let metronome, let beat,
           let grid = ClickGrid(beat: beat, sourceRate: sourceRate, beatsPerBar: metronome.plan.beatsPerBar) {
            let ratio = Double(sourceRate) / Double(device.sampleRate) * tempo
            clicks.lead = min(clicks.interval - 1, grid.framesToNextBeat(from: Double(point.frame), ratio: ratio))
        }
        inserts.append(clicks)
    }

    /// Words over the music (ducked) or before it (an insert while the position holds at `point`).
    private mutating func place(_ words: PendingAnnouncements.Words, at point: SourcePoint, sourceRate: Int,
                                _ env: some DecoderEnvironment) {
        guard let device else { return }
        let samples = words.speech.resampled(to: device.sampleRate)
        if words.duck {
            env.setOverlay(SpeechOverlay(speech: samples, ramp: device.sampleRate / 10))
        } else {
            mark(.jump, point, sourceRate: sourceRate, holds: true, env)
            inserts.append(.words(samples, resume: point, sourceRate: sourceRate))
        }
    }

    // MARK: helpers

    @discardableResult
    private mutating func flush(_ kind: FlushKind, open format: AudioFormat?,
                                _ env: some DecoderEnvironment) -> FlushAnswer {
        let answer = env.flush(kind, open: format)
        device = kind == .close ? nil : answer.device
        return answer
    }

    /// The tempo `item` plays at: its own, unless the listener changed it while it played; else the listener's.
    private func tempo(for item: PlayableItem) -> Double {
        if item.isLive { return 1 }
        return entryTempo.tempo(of: item.entryID, own: item.ownTempo, listener: listenerTempo)
    }

    private mutating func setTempo(_ value: Double, continuous: Bool, _ env: some DecoderEnvironment) {
        tempo = value
        env.setConverterTempo(value, continuous: continuous)
    }

    /// `pass`: the loop pass what follows belongs to (nil: the cursor's current one).
    private func mark(_ kind: TrackMark.Kind, _ point: SourcePoint?, sourceRate: Int, holds: Bool = false,
                      pass: Int? = nil, _ env: some DecoderEnvironment) {
        var current = 1
        if case let .decoding(cursor, _) = phase { current = cursor.passes + 1 }
        env.pushMark(MarkRequest(kind: kind, point: point, sourceRate: sourceRate, holdsPosition: holds,
                                 generation: startGeneration, pass: pass ?? current), device: device)
    }

    private mutating func resetPasses() {
        if case .decoding(var cursor, let next) = phase {
            cursor.passes = 0
            phase = .decoding(cursor, next: next)
        }
    }

    private var isFollowing: Bool {
        if case .follow = formatPolicy { return true }
        return false
    }

    /// The format to open the device at for a stream starting with `source`.
    private func deviceFormat(for source: AudioFormat, _ env: some DecoderEnvironment) -> AudioFormat {
        if case let .fixed(format?) = formatPolicy { return format }
        if let device, !isFollowing, !env.outputIsClosed { return device }
        return source
    }
}
