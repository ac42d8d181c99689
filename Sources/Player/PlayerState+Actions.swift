import AudioCore
import Engine
import FermataCore

/// The reducer's answer to each `ControlAction` (the listener's buttons, pedals, cards, the CLI and MPD clients).
extension PlayerState {
    mutating func perform(_ action: ControlAction, facts: FileFacts = FileFacts(), _ step: inout PlayerStep) throws {
        switch action {
        case .play:
            if !transport.isStopped { return setPaused(false, &step) }
            guard let entry = entryToStart else { throw Player.ActionError.emptyQueue }
            begin(entry, countingIn: true, paused: false, &step)
        case let .playEntry(id):
            guard let entry = queue.entry(id: id) else { throw Player.ActionError.noSuchEntry(id) }
            // In random order the chosen entry moves to where it plays now (MPD's `play N`), so what was still to
            // come still comes after it.
            if queue.moveToPlayNow(id, current: current, playing: !transport.isStopped) { queueEdited(&step) }
            begin(entry, countingIn: true, paused: false, &step)
        case .pause: setPaused(true, &step)
        case .resume: setPaused(false, &step)
        case .togglePause: if !transport.isStopped { setPaused(transport.isPlaying, &step) }  // MPD: none when stopped
        case .playPause:
            if transport.isStopped { return try perform(.play, &step) }
            setPaused(transport.isPlaying, &step)
        case .stop: stop(&step)
        case .next: try skip(forward: true, &step)
        case .previous: try skip(forward: false, &step)
        case .previousEntry: try skip(forward: false, restarting: false, &step)
        case let .skipPlaying(forward):
            guard !transport.isStopped else { throw Player.ActionError.notPlaying }
            try skip(forward: forward, restarting: false, playing: true, &step)
        case let .seek(seconds): try seek(to: seconds, &step)
        case let .seekBy(delta): try seek(to: position(step.heard).seconds + delta, &step)
        case let .seekEntry(id, seconds): try seekEntry(id, seconds: seconds, rate: nil, &step)
        case let .setVolume(value): setVolume(value, &step)
        case let .changeVolume(delta): setVolume(modes.volume + min(100, max(-100, delta)), &step)
        case let .setRepeat(mode): changeOptions(&step) { $0.repeatMode = mode }
        case let .setSingle(on): changeOptions(&step) {
            $0.single = on
            $0.singleOneshot = false
        }
        case let .setReplayGain(mode): changeOptions(&step) { $0.replayGain = mode }
        case let .setTempo(percent):
            guard (50...150).contains(percent) else { throw Player.ActionError.invalidValue("tempo must be 50-150 %") }
            setSteppedTempo(percent, &step)
        case let .changeTempo(delta):
            setSteppedTempo(min(150, max(50, tempoPercent + min(100, max(-100, delta)))), &step)
        case let .setTranspose(cents):
            guard Transposition.range.contains(cents) else {
                throw Player.ActionError.invalidValue("transposition must be -12.5 to +12.5 semitones")
            }
            setTranspose(cents, &step)
        case let .changeTranspose(delta):
            // Bounded by the range's width, so the sum cannot overflow and any change can reach either end.
            let bounded = min(2_500, max(-2_500, delta))
            setTranspose(min(Transposition.range.upperBound, max(Transposition.range.lowerBound,
                                                                  modes.transposeCents + bounded)), &step)
        case let .speedTrainer(plan?):
            if let problem = plan.problem { throw Player.ActionError.invalidValue(problem) }
            setTrainer(plan, &step)
        case .speedTrainer(nil): setTrainer(nil, &step)
        case .trainerAgain:
            guard trainer.plan != nil else { throw Player.ActionError.invalidValue("no step trainer is running") }
            step.order(.trainerAgain)
            step.changed(.player)
        case .toggleTrainer:
            if trainer.plan != nil {
                setTrainer(nil, &step)
            } else {
                guard loopMarks.loop != nil else {
                    throw Player.ActionError.invalidValue("the step trainer climbs on a loop: set A and B or play a section")
                }
                let rate = step.heard.sourceRate
                let section = activeSection(rate: rate, on: current).map { sections(for: current)[$0] }
                setTrainer(section?.trainer ?? trainer.lastPlan ?? SpeedTrainerPlan.standard, &step)
            }
        case .announce: break  // words, not state: the driver renders and plays them (`Player.announce`)
        case let .setAnnouncements(duck, onTrackChange):
            changeOptions(&step) { $0.announcements = AnnouncementStyle(duck: duck, onTrackChange: onTrackChange) }
        case let .countIn(plan):
            if let plan, plan.beats > 0, let problem = plan.problem { throw Player.ActionError.invalidValue(problem) }
            changeOptions(&step) { $0.countIn = plan.flatMap { $0.beats > 0 ? $0 : nil } }
        case .loopSetA: setLoopMarks(try loopMarks.markingA(at: try heardFrame(step.heard)), &step)
        case .loopSetB: setLoopMarks(try loopMarks.markingB(at: try heardFrame(step.heard)), &step)
        case .loopCycle:
            let marks = loopMarks.loop != nil ? LoopMarks.none : try loopMarks.cycling(at: try heardFrame(step.heard))
            setLoopMarks(marks, &step)
        case .loopClear: setLoopMarks(.none, &step)
        case let .loopLast(seconds):
            guard seconds.isFinite, (0.5...600).contains(seconds) else {
                throw Player.ActionError.invalidValue("loop-last takes 0.5 to 600 seconds")
            }
            // Seconds of listening: at 80 % they hold 0.8 × as much of the track.
            try loopLast(trackSeconds: seconds * Double(modes.tempoPercent) / 100, &step)
        case let .loopLastBars(bars, beatsPerBar):
            guard (1...64).contains(bars), (1...16).contains(beatsPerBar) else {
                throw Player.ActionError.invalidValue("loop-last takes 1 to 64 bars of 1 to 16 beats")
            }
            if loopMarks.loop != nil { return setLoopMarks(.none, &step) }
            let tagged = facts.entry == current ? facts.taggedBPM.flatMap { CountInPlan.bpmRange.contains($0) ? $0 : nil } : nil
            guard let bpm = beat(for: current)?.bpm ?? tagged else {
                throw Player.ActionError.invalidValue("no beat known for this track: tap it, or set it with bpm")
            }
            // Bars are track time: the tempo changes how long they last, not how much of the track they hold.
            try loopLast(trackSeconds: Double(bars * beatsPerBar) * 60 / bpm, &step)
        case let .playSection(choice): try playSection(choice, facts: facts, &step)
        case let .setSections(entry, list):
            guard list.count <= PracticeSection.maxPerTrack, list.allSatisfy({ $0.problem == nil }) else {
                throw Player.ActionError.invalidValue("sections must be valid, at most \(PracticeSection.maxPerTrack)")
            }
            guard queue.entry(id: entry) != nil else { throw Player.ActionError.noSuchEntry(entry) }
            let new = EntrySections(entry: entry, list: list)
            guard new != sections else { return }
            sections = new
            step.changed(.player)
        case let .tapTempo(time):
            // The entry heard, or on a stopped box the one play would start.
            guard let entry = entryToStart?.id else { throw Player.ActionError.emptyQueue }
            // A tapped tempo keeps the grid's first beat where it was set (0 without one).
            if let bpm = taps.tap(atNanoseconds: time) {
                setBeat(TrackBeat(bpm: bpm, offsetSeconds: beat(for: entry)?.offsetSeconds ?? 0), on: entry, &step)
            }
        case let .setBeat(new):
            guard let entry = entryToStart?.id else { throw Player.ActionError.emptyQueue }
            if let problem = new?.problem { throw Player.ActionError.invalidValue(problem) }
            setBeat(new, on: entry, &step)
        case let .metronome(plan):
            if let problem = plan?.problem { throw Player.ActionError.invalidValue(problem) }
            changeMetronome(plan, &step)
        case .toggleMetronome: changeMetronome(modes.metronome == nil ? lastMetronome ?? MetronomePlan() : nil, &step)
        case let .loopNudge(endpoint, ms):
            let offset = FrameTime.offset(milliseconds: ms, rate: max(1, step.heard.sourceRate))
            setLoopMarks(try loopMarks.nudging(endpoint, by: offset), &step)
        case let .setLoop(start, end, count):
            let heard = try heardTrack(step.heard)
            let region = LoopRegion(start: FrameTime.frames(seconds: start, rate: heard.rate),
                                    end: FrameTime.frames(seconds: end, rate: heard.rate), repeatCount: count)
            setLoopMarks(try .region(region, on: heard.entry), &step)
        case let .practiceMemory(entry, tempo, loop, transpose, memoryBeat):
            guard (50...150).contains(tempo) else { throw Player.ActionError.invalidValue("tempo must be 50-150 %") }
            guard Transposition.range.contains(transpose) else {
                throw Player.ActionError.invalidValue("transposition must be -12.5 to +12.5 semitones")
            }
            // Refused when the listener changed the tempo or the loop since the entry started, or it is no longer
            // the entry playing: the memory was read for a moment that has passed.
            guard current == entry, !transport.isStopped, !practiceTouched else { throw PracticeMemorySuperseded() }
            // A range or a queued section brings its own part of the track and tempo: a memory is not for it.
            guard queue.entry(id: entry)?.span == nil else { throw PracticeMemorySuperseded() }
            var marks: LoopMarks?
            if let loop {
                let heard = try heardTrack(step.heard)
                guard heard.entry == entry else { throw PracticeMemorySuperseded() }
                marks = try .region(LoopRegion(start: FrameTime.frames(seconds: loop.startSeconds, rate: heard.rate),
                                               end: FrameTime.frames(seconds: loop.endSeconds, rate: heard.rate),
                                               repeatCount: loop.repeatCount), on: entry)
            }
            setSteppedTempo(tempo, &step)
            setTranspose(transpose, &step)
            if let memoryBeat, memoryBeat.problem == nil { setBeat(memoryBeat, on: entry, &step) }
            if let marks { setLoopMarks(marks, &step) }
        }
    }

    /// Plays a section of the track heard (stopped: of the current entry, at the rate its file gave the driver), in
    /// one step: its region becomes the loop (its passes: jumps back one fewer), its tempo applies, and playback
    /// starts at its start.
    private mutating func playSection(_ choice: SectionChoice, facts: FileFacts, _ step: inout PlayerStep) throws {
        let stopped = transport.isStopped
        let heard: (entry: EntryID, rate: Int, frame: Int64)
        if stopped {
            guard let target = entryToStart?.id, facts.entry == target, let rate = facts.rate, rate > 0 else {
                throw Player.ActionError.notPlaying
            }
            heard = (target, rate, 0)
        } else {
            heard = try heardTrack(step.heard)
        }
        var list = sections(for: heard.entry)
        if list.isEmpty, facts.entry == heard.entry, let read = facts.sections, !read.isEmpty {
            list = read
            sections = EntrySections(entry: heard.entry, list: read)  // kept: the next step finds them
        }
        guard !list.isEmpty, let entry = queue.entry(id: heard.entry) else {
            throw Player.ActionError.invalidValue("this track has no sections (save one with section_save)")
        }
        let now = FrameTime.milliseconds(frames: heard.frame, rate: heard.rate)
        let active = activeSection(rate: heard.rate, on: heard.entry)
        let index: Int
        switch choice {
        case let .index(wanted):
            guard list.indices.contains(wanted) else {
                throw Player.ActionError.invalidValue("no section \(wanted + 1): this track has \(list.count)")
            }
            index = wanted
        case let .named(name):
            guard let found = list.firstIndex(where: { $0.name == name }) else {
                throw Player.ActionError.invalidValue("this track has no section named \(name)")
            }
            index = found
        case .next:
            index = active.map { ($0 + 1) % list.count } ?? list.firstIndex { $0.startMilliseconds > now } ?? 0
        case .previous:
            index = active.map { ($0 + list.count - 1) % list.count }
                ?? list.lastIndex { $0.startMilliseconds < now } ?? list.count - 1
        }
        let section = list[index]
        let region = LoopRegion(start: FrameTime.frames(milliseconds: section.startMilliseconds, rate: heard.rate),
                                end: FrameTime.frames(milliseconds: section.endMilliseconds, rate: heard.rate),
                                repeatCount: section.passes.map { $0 - 1 })
        setLoopMarks(try .region(region, on: entry.id), &step)
        if let plan = section.trainer {
            setTrainer(plan, &step)
        } else if let tempo = section.tempoPercent {
            setSteppedTempo(tempo, &step)
        }
        begin(entry, atFrame: region.start, rate: heard.rate, countingIn: stopped, paused: stopped ? false : nil,
              songStarted: stopped, &step)
    }

    /// Loops the last `trackSeconds` of the track heard, ending where it is now; with a loop set, clears it instead
    /// ("Again!" pressed twice: straight on).
    private mutating func loopLast(trackSeconds: Double, _ step: inout PlayerStep) throws {
        if loopMarks.loop != nil { return setLoopMarks(.none, &step) }
        guard trackSeconds.isFinite, trackSeconds > 0, trackSeconds <= 900 else {
            throw Player.ActionError.invalidValue("loop-last covers at most 900 seconds of the track")
        }
        let heard = try heardTrack(step.heard)
        let span = FrameTime.frames(seconds: trackSeconds, rate: heard.rate)
        let region = LoopRegion(start: max(0, heard.frame - span), end: heard.frame, repeatCount: nil)
        setLoopMarks(try .region(region, on: heard.entry), &step)
    }

    /// Turns the click over the track on or off (a mode: saved, and shown to clients as an option).
    mutating func changeMetronome(_ plan: MetronomePlan?, _ step: inout PlayerStep) {
        guard plan != modes.metronome else { return }
        if let old = modes.metronome { lastMetronome = old }
        modes.metronome = plan
        orderMetronome(&step)
        step.changed(.options)
    }

    private mutating func setVolume(_ value: Int, _ step: inout PlayerStep) {
        updateModes(&step) { $0.volume = max(0, min(100, value)) }
        step.changed(.mixer)
    }

    private mutating func changeOptions(_ step: inout PlayerStep, _ body: (inout PlayerModes) -> Void) {
        updateModes(&step, body)
        step.changed(.options)
    }

    /// Applies a speed in percent, rounded to the 5 % steps a musician dials in.
    private mutating func setSteppedTempo(_ percent: Int, _ step: inout PlayerStep) {
        let stepped = PlayerModes.steppedTempo(percent)
        // Against the tempo heard: on a section queued at 80 %, "100" is a change though the listener's is 100.
        guard stepped != tempoPercent else { return }
        entryTempo.listenerChanged(current: current, hasOwnTempo: current.flatMap(queue.entry(id:))?.span?.tempoPercent != nil)
        setTempo(stepped, &step)
    }

    /// `restarting`: the button's rule, back to the start of the entry once more than 3 s were heard.
    /// `playing`: the entry skipped to plays even when the player was paused (MPD's `next`/`previous`); with nothing
    /// before the first entry, a paused player plays on where it is (as MPD's client saw it).
    private mutating func skip(forward: Bool, restarting: Bool = true, playing: Bool = false,
                               _ step: inout PlayerStep) throws {
        guard let from = current else { throw Player.ActionError.notPlaying }
        if !forward && restarting && position(step.heard).seconds > 3 && !transport.isStopped {
            return try seek(to: 0, &step)
        }
        // MPD's repeat (Fermata's queue and track repeat both read as `repeat 1`) wraps a skip at the ends.
        let wrap = modes.repeatMode != .off
        var target = forward ? queue.entry(after: from, wrap: wrap) : queue.entry(before: from, wrap: wrap)
        // MPD's GetNextOrder: under consume the queue wraps only from a later entry, so a lone entry is not replayed.
        if forward, modes.consume != .off, target?.id == from { target = nil }
        if transport.isStopped {
            if let target { moveCursor(to: target.id, &step) }
            return
        }
        // MPD's `next` under consume removes the entry skipped (its `PlayNext`); `previous` keeps it.
        if forward, modes.consume != .off, from != target?.id {
            queue.remove(id: from)
            queueEdited(&step)
            if modes.consume == .oneshot { changeOptions(&step) { $0.consume = .off } }
        }
        if let target {
            begin(target, paused: playing ? false : nil, &step)
        } else if forward {
            // Past the end: stopped with no current entry (MPD's PlayNext); `play` starts the queue again.
            stop(clearingCursor: true, &step)
        } else if playing {
            setPaused(false, &step)
        }
    }

    private mutating func seek(to seconds: Double, _ step: inout PlayerStep) throws {
        let heard = try heardTrack(step.heard)
        guard let entry = queue.entry(id: heard.entry) else { throw Player.ActionError.noSuchEntry(heard.entry) }
        begin(entry, atFrame: FrameTime.frames(seconds: seconds, rate: heard.rate), songStarted: false, &step)
    }

    /// A seek in `id` (MPD `seekid`): in the entry heard, a seek; in another, a start there at `rate` (its file's,
    /// read by the driver before the step; unknown: from its start). A paused player stays paused (MPD seeks without
    /// resuming); a stopped one plays.
    mutating func seekEntry(_ id: EntryID, seconds: Double, rate: Int?, _ step: inout PlayerStep) throws {
        guard transport.isStopped || position(step.heard).entryID != id else { return try seek(to: seconds, &step) }
        guard let entry = queue.entry(id: id) else { throw Player.ActionError.noSuchEntry(id) }
        if PlayableItem.isLive(entry.uri), seconds > 0 { throw Player.ActionError.notSeekable }
        let frame = rate.map { FrameTime.frames(seconds: seconds, rate: $0) } ?? 0
        let stopped = transport.isStopped
        begin(entry, atFrame: frame, rate: rate, countingIn: stopped, paused: stopped ? false : nil, songStarted: false,
              &step)
    }

    /// The entry heard now (or just asked for: `position`), its source rate and the frame heard.
    func heardTrack(_ engineHeard: EnginePosition) throws -> (entry: EntryID, rate: Int, frame: Int64) {
        let position = position(engineHeard)
        guard !transport.isStopped, let entry = position.entryID ?? current, position.sourceRate > 0 else {
            throw Player.ActionError.notPlaying
        }
        // A stream has no place to go back to: no seek, no loop mark.
        if let uri = queue.entry(id: entry)?.uri, PlayableItem.isLive(uri) { throw Player.ActionError.notSeekable }
        return (entry, position.sourceRate, position.sourceFrame)
    }

    /// Where a loop mark made now goes.
    private func heardFrame(_ heard: EnginePosition) throws -> EntryFrame {
        let track = try heardTrack(heard)
        return EntryFrame(entry: track.entry, frame: track.frame)
    }
}

extension ControlAction {
    /// Whether the action may set a loop (which the engine then jumps into).
    var setsLoop: Bool {
        switch self {
        case .loopSetB, .loopCycle, .loopLast, .loopLastBars, .loopNudge, .setLoop, .practiceMemory: true
        default: false
        }
    }

    /// Whether the action is the listener's own change of the tempo or the loop (a practice memory is not).
    var setsPracticeSettings: Bool {
        switch self {
        case .setTempo, .changeTempo, .setTranspose, .changeTranspose, .speedTrainer, .toggleTrainer, .loopSetA, .loopSetB, .loopCycle,
             .loopClear, .loopLast, .loopLastBars, .loopNudge, .setLoop, .tapTempo, .setBeat, .playSection: true
        default: false
        }
    }

    /// Whether the action works on the heard entry's seconds, so its source rate must be known first (a skip to an
    /// entry not heard yet has its rate read from the file before the step).
    var needsHeardRate: Bool {
        switch self {
        case .seek, .seekBy, .seekEntry, .loopSetA, .loopSetB, .loopCycle, .loopLast, .loopLastBars, .setLoop,
             .practiceMemory, .playSection: true
        default: false
        }
    }
}
