import AudioCore
import Decoders
import Engine
import FermataCore

/// The player's answers to each `ControlAction`.
extension Player {
    /// Errors an action can raise for the front end to report.
    public enum ActionError: Error, Equatable, CustomStringConvertible {
        case emptyQueue
        case noSuchEntry(EntryID)
        case notPlaying
        case loopNeedsA
        case loopBBeforeA
        case invalidValue(String)
        /// The insert would make the queue longer than `Player.maxQueueLength`; nothing was added.
        case queueFull

        public var description: String {
            switch self {
            case .emptyQueue: "the queue is empty"
            case let .noSuchEntry(id): "no queue entry with id \(id)"
            case .notPlaying: "nothing is playing"
            case .loopNeedsA: "set loop point A first"
            case .loopBBeforeA: "loop point B must come after A"
            case let .invalidValue(what): "invalid value: \(what)"
            case .queueFull: "the queue holds at most \(Player.maxQueueLength) entries"
            }
        }
    }

    /// Applies `action` and writes the new state durably once before returning (the client's `OK` promises it): a
    /// transport change saves itself as it starts or stops; anything else is saved here.
    public func perform(_ action: ControlAction) async throws {
        let writes = durableWrites
        try await apply(action)
        if action.setsPracticeSettings { practiceTouched = true }
        if action.setsLoop { notePendingLoopJump() }
        if durableWrites == writes { await save() }
    }

    /// A loop just set whose end is at or before what is heard sends playback to its start, a moment later, in the
    /// engine: until that is heard, saves hold the loop's start, not the place heard before the jump (the durability
    /// property test found a restart resume past B, the loop skipped).
    private func notePendingLoopJump() {
        guard let loop = loopMarks.loop, !transport.isStopped, loop.entry == current else { return }
        let heard = currentPosition()
        guard heard.entryID == loop.entry, heard.sourceFrame >= loop.region.end else { return }
        pendingLoopJump = EntryFrame(entry: loop.entry, frame: loop.region.start)
    }

    private func apply(_ action: ControlAction) async throws {
        switch action {
        case .play:
            if !transport.isStopped { return setPaused(false) }
            guard let entry = current.flatMap(queue.entry(id:)) ?? queue.firstInPlayOrder else {
                throw ActionError.emptyQueue
            }
            await begin(entry, countingIn: true, paused: false)
        case let .playEntry(id):
            guard let entry = queue.entry(id: id) else { throw ActionError.noSuchEntry(id) }
            // In random order the chosen entry moves to where it plays now (MPD's `play N`), so what was still to
            // come still comes after it.
            let (from, playing) = (current, !transport.isStopped)
            let moved = editQueue { queue, _ in queue.moveToPlayNow(id, current: from, playing: playing) }
            await begin(entry, countingIn: true, paused: false,
                        queueEdit: moved ? .shuffleOrder(queue.shuffledOrder) : nil)
        case .pause: setPaused(true)
        case .resume: setPaused(false)
        case .togglePause: if !transport.isStopped { setPaused(transport.isPlaying) }  // MPD: no effect when stopped
        case .playPause:
            if transport.isStopped { return try await apply(.play) }
            setPaused(transport.isPlaying)
        case .stop: await stop()
        case .next: try await skip(forward: true)
        case .previous: try await skip(forward: false)
        case .previousEntry: try await skip(forward: false, restarting: false)
        case let .seek(seconds): try await seek(to: seconds)
        case let .seekBy(delta): try await seek(to: currentPosition().seconds + delta)
        case let .seekEntry(id, seconds):
            if transport.isStopped || currentPosition().entryID != id {
                guard let entry = queue.entry(id: id) else { throw ActionError.noSuchEntry(id) }
                // A paused player stays paused (MPD seeks without resuming); a stopped one plays.
                await begin(entry, countingIn: transport.isStopped, paused: transport.isStopped ? false : nil,
                            songStarted: false)
            }
            try await seek(to: seconds)
        case let .setVolume(value): setVolume(value)
        case let .changeVolume(delta): setVolume(modes.volume + min(100, max(-100, delta)))
        case let .setRepeat(mode): changeOptions { $0.repeatMode = mode }
        case let .setSingle(on): changeOptions {
            $0.single = on
            $0.singleOneshot = false
        }
        case let .setReplayGain(mode): changeOptions { $0.replayGain = mode }
        case let .setTempo(percent):
            guard (50...150).contains(percent) else { throw ActionError.invalidValue("tempo must be 50-150 %") }
            setSteppedTempo(percent)
        case let .changeTempo(delta):
            setSteppedTempo(min(150, max(50, modes.tempoPercent + min(100, max(-100, delta)))))
        case let .speedTrainer(plan?):
            if let problem = plan.problem { throw ActionError.invalidValue(problem) }
            setSpeedTrainer(startPercent: plan.startPercent, stepPercent: plan.stepPercent,
                            everyPasses: plan.everyPasses, ceilingPercent: plan.ceilingPercent)
        case .speedTrainer(nil): clearSpeedTrainer()
        case let .announce(text): try await announce(text)
        case let .setAnnouncements(duck, onTrackChange):
            changeOptions { $0.announcements = AnnouncementStyle(duck: duck, onTrackChange: onTrackChange) }
        case let .countIn(plan):
            if let plan, plan.beats > 0, let problem = plan.problem { throw ActionError.invalidValue(problem) }
            changeOptions { $0.countIn = plan.flatMap { $0.beats > 0 ? $0 : nil } }
        case .loopSetA: setLoopMarks(try loopMarks.markingA(at: try await heardFrame()))
        case .loopSetB: setLoopMarks(try loopMarks.markingB(at: try await heardFrame()))
        case .loopCycle:
            if loopMarks.loop != nil {
                setLoopMarks(.none)
            } else {
                setLoopMarks(try loopMarks.cycling(at: try await heardFrame()))
            }
        case .loopClear: setLoopMarks(.none)
        case let .loopLast(seconds):
            guard seconds.isFinite, (0.5...600).contains(seconds) else {
                throw ActionError.invalidValue("loop-last takes 0.5 to 600 seconds")
            }
            if loopMarks.loop != nil {
                setLoopMarks(.none)
            } else {
                let heard = try await heardTrack()
                let span = FrameTime.frames(seconds: seconds * Double(modes.tempoPercent) / 100, rate: heard.rate)
                let region = LoopRegion(start: max(0, heard.frame - span), end: heard.frame, repeatCount: nil)
                setLoopMarks(try .region(region, on: heard.entry))
            }
        case let .loopNudge(endpoint, ms):
            let offset = FrameTime.offset(milliseconds: ms, rate: max(1, engine.position().sourceRate))
            setLoopMarks(try loopMarks.nudging(endpoint, by: offset))
        case let .setLoop(start, end, count):
            let heard = try await heardTrack()
            let region = LoopRegion(start: FrameTime.frames(seconds: start, rate: heard.rate),
                                    end: FrameTime.frames(seconds: end, rate: heard.rate), repeatCount: count)
            setLoopMarks(try .region(region, on: heard.entry))
        case let .practiceMemory(entry, tempo, loop):
            guard (50...150).contains(tempo) else { throw ActionError.invalidValue("tempo must be 50-150 %") }
            var marks: LoopMarks?
            if let loop {
                let heard = try await heardTrack()  // the entry's rate, read off the actor when not known yet
                guard heard.entry == entry else { throw PracticeMemorySuperseded() }
                marks = try .region(LoopRegion(start: FrameTime.frames(seconds: loop.startSeconds, rate: heard.rate),
                                               end: FrameTime.frames(seconds: loop.endSeconds, rate: heard.rate),
                                               repeatCount: loop.repeatCount), on: entry)
            }
            // Checked after the last `await`, applied in the same turn: nothing can come between.
            guard current == entry, !transport.isStopped, !practiceTouched else { throw PracticeMemorySuperseded() }
            setSteppedTempo(tempo)
            if let marks { setLoopMarks(marks) }
        }
    }

    private func setVolume(_ value: Int) {
        updateModes { $0.volume = max(0, min(100, value)) }
        changeSink.yield(.mixer)
    }

    /// Sets the highest volume any path may set (buttons, encoder, clients, the CLI, a card); a volume above it comes
    /// down to it at once (saved, and clients told).
    public func setVolumeCeiling(_ value: Int) async {
        let before = modes.volume
        updateModes { $0.volumeCeiling = value }
        guard modes.volume != before else { return }
        changeSink.yield(.mixer)
        await save()
    }

    /// The highest volume any path may set now.
    public var volumeCeiling: Int { modes.volumeCeiling }

    /// Silences the output without stopping the stream (and restores the volume).
    public func setMuted(_ on: Bool) {
        updateModes { $0.muted = on }
    }

    private func changeOptions(_ body: (inout PlayerModes) -> Void) {
        updateModes(body)
        changeSink.yield(.options)
    }

    /// `restarting`: the button's rule, back to the start of the entry once more than 3 s were heard.
    private func skip(forward: Bool, restarting: Bool = true) async throws {
        guard let from = current else { throw ActionError.notPlaying }
        if !forward && restarting && currentPosition().seconds > 3 && !transport.isStopped {
            try await seek(to: 0)
            return
        }
        // MPD's repeat (Fermata's queue and track repeat both read as `repeat 1`) wraps a skip at the ends.
        let wrap = modes.repeatMode != .off
        var target = forward ? queue.entry(after: from, wrap: wrap) : queue.entry(before: from, wrap: wrap)
        // MPD's GetNextOrder: under consume the queue wraps only from a later entry, so a lone entry is not replayed.
        if forward, modes.consume != .off, target?.id == from { target = nil }
        if transport.isStopped {
            if let target { moveCursor(to: target.id) }
            return
        }
        // MPD's `next` under consume removes the entry skipped (its `PlayNext`); `previous` keeps it.
        var consumed: PersistedQueueEdit?
        if forward, modes.consume != .off, from != target?.id {
            editQueue { queue, _ in queue.remove(id: from) }
            consumed = .removed([from])
            if modes.consume == .oneshot { changeOptions { $0.consume = .off } }
        }
        if let target {
            await begin(target, queueEdit: consumed)
        } else if forward {
            // Past the end: stopped with no current entry (MPD's PlayNext); `play` starts the queue again.
            await stop(clearingCursor: true, queueEdit: consumed)
        }
    }

    private func seek(to seconds: Double) async throws {
        let heard = try await heardTrack()
        guard let entry = queue.entry(id: heard.entry) else { throw ActionError.noSuchEntry(heard.entry) }
        await begin(entry, atFrame: FrameTime.frames(seconds: seconds, rate: heard.rate), songStarted: false)
    }

    /// The entry heard now (or just asked for: `currentPosition`), its source rate and the frame heard.
    private func heardTrack() async throws -> (entry: EntryID, rate: Int, frame: Int64) {
        await resolveRequestedRate()
        let position = currentPosition()
        guard !transport.isStopped, let entry = position.entryID ?? current, position.sourceRate > 0 else {
            throw ActionError.notPlaying
        }
        return (entry, position.sourceRate, position.sourceFrame)
    }

    /// Where a loop mark made now goes.
    private func heardFrame() async throws -> EntryFrame {
        let heard = try await heardTrack()
        return EntryFrame(entry: heard.entry, frame: heard.frame)
    }

    /// Sets the loop of `entry` before or during playback (frames of that entry's source).
    public func setLoop(entry: EntryID, _ region: LoopRegion) throws {
        guard queue.entry(id: entry) != nil else { throw ActionError.noSuchEntry(entry) }
        setLoopMarks(try .region(region, on: entry))
    }

    /// Speaks `text`, or what is playing: "Title, by Artist; loop from 1 minutes 2 to 1 minutes 10; 80 percent speed".
    private func announce(_ text: String?) async throws {
        var words = text ?? ""
        if text == nil {
            guard let entry = current.flatMap(queue.entry(id:)) else { throw ActionError.notPlaying }
            words = await trackTitle(entry)
            let rate = Double(max(1, engine.position().sourceRate))
            if let loop = loopMarks.loop, loop.entry == entry.id {
                let region = loop.region
                func spoken(_ frame: Int64) -> String {
                    let seconds = Int(Double(frame) / rate)
                    return seconds >= 60 ? "\(seconds / 60) minutes \(seconds % 60)" : "\(seconds) seconds"
                }
                words += "; loop from \(spoken(region.start)) to \(spoken(region.end))"
            }
            if modes.tempoPercent != 100 { words += "; \(modes.tempoPercent) percent speed" }
        }
        if let speech = await speak(words) { engine.announce(speech, duck: modes.announcements.duck) }
    }

    /// "Title, by Artist" from the file's tags (the file name without them), read on `BlockingWork`: the actor does
    /// no file I/O.
    nonisolated func trackTitle(_ entry: QueueEntry) async -> String {
        let file = path(for: entry.uri)
        let tags = await BlockingWork.run { try? TagReader.read(path: file) }
        let title = tags?.title ?? String(entry.uri.split(separator: "/").last ?? "")
        return tags?.artist.map { "\(title), by \($0)" } ?? title
    }

    /// Applies a speed in percent, rounded to the 5 % steps a musician dials in.
    private func setSteppedTempo(_ percent: Int) {
        let stepped = PlayerModes.steppedTempo(percent)
        guard stepped != modes.tempoPercent else { return }
        setTempo(stepped)
    }

    /// Starts or ends the speed trainer (tempos in percent); the start tempo applies at once.
    public func setSpeedTrainer(startPercent: Int, stepPercent: Int, everyPasses: Int, ceilingPercent: Int) {
        setTrainer(SpeedTrainer(start: Double(startPercent) / 100, step: Double(stepPercent) / 100,
                                everyPasses: everyPasses, ceiling: Double(ceilingPercent) / 100))
    }

    public func clearSpeedTrainer() { setTrainer(nil) }
}

extension ControlAction {
    /// Whether the action may set a loop (which the engine then jumps into).
    var setsLoop: Bool {
        switch self {
        case .loopSetB, .loopCycle, .loopLast, .loopNudge, .setLoop, .practiceMemory: true
        default: false
        }
    }

    /// Whether the action is the listener's own change of the tempo or the loop (a practice memory is not).
    var setsPracticeSettings: Bool {
        switch self {
        case .setTempo, .changeTempo, .speedTrainer, .loopSetA, .loopSetB, .loopCycle, .loopClear, .loopLast,
             .loopNudge, .setLoop: true
        default: false
        }
    }
}
