import Engine
import FermataCore

/// One step of the player under way: the position heard when it began, and the effects it has asked for so far.
struct PlayerStep {
    let heard: EnginePosition
    var effects = PlayerEffects()
    var save = PendingSave()
    /// The queue or a mode that decides what follows changed: the engine is told again what follows, once, at the end.
    var upcomingChanged = false

    mutating func order(_ order: EngineOrder) { effects.order(order) }
    mutating func changed(_ change: PlayerChange) { effects.changed(change) }
}

/// The reducer: `(state, command) → (state, effects)`. A command that throws leaves the state as it was and asks for
/// nothing; one that succeeds asks for at most one save, of the state it ends in.
extension PlayerState {
    mutating func reduce(_ command: PlayerCommand, heard: EnginePosition) throws -> PlayerEffects {
        var next = self
        var step = PlayerStep(heard: heard)
        try next.apply(command, &step)
        if step.upcomingChanged { next.refreshUpcoming(&step) }
        if step.save.wanted {
            let snapshot = next.snapshot(heard)
            let unchanged = step.save.onlyIfChanged && !step.save.queueChanged && snapshot == self.snapshot(heard)
            if !unchanged {
                step.effects.save = step.save.queueChanged ? .stateAndQueue(snapshot, next.queue) : .state(snapshot)
            }
        }
        self = next
        return step.effects
    }

    private mutating func apply(_ command: PlayerCommand, _ step: inout PlayerStep) throws {
        switch command {
        case let .action(action, facts):
            try perform(action, facts: facts, &step)
            if action.setsPracticeSettings { practiceTouched = true }
            if action.setsLoop { notePendingLoopJump(step.heard) }
            // The client's `OK` promises the new state survives a power cut; an action that changed nothing of it has
            // nothing to write.
            step.save.stateIfChanged()
        case let .seekEntry(id, seconds, rate):
            try seekEntry(id, seconds: seconds, rate: rate, &step)
            step.save.state()
        case let .insert(uris, gains, spans, at): try insert(uris: uris, replayGain: gains, spans: spans, at: at, &step)
        case let .setSpan(entry, span): try setSpan(span, of: entry, &step)
        case let .remove(ids): try remove(ids, &step)
        case let .move(range, destination): try move(range, to: destination, &step)
        case let .swap(first, second): try swapAt(first, second, &step)
        case .clear: clear(&step)
        case let .shuffle(range): shuffle(range, &step)
        case let .setShuffled(on): setShuffled(on, &step)
        case .singleOneshot: singleOneshot(&step)
        case let .consume(mode): setConsume(mode, &step)
        case let .priority(priority, ranges): setPriority(priority, ranges, &step)
        case let .volumeCeiling(value): limitVolume(&step) { $0.volumeCeiling = value }
        case let .volumeFloor(value): limitVolume(&step) { $0.volumeFloor = value }
        case let .setLoop(entry, region):
            guard queue.entry(id: entry) != nil else { throw Player.ActionError.noSuchEntry(entry) }
            setLoopMarks(try .region(region, on: entry), &step)
            step.save.state()
        case let .speedTrainer(trainer): setTrainer(trainer, &step)
        case .clearError:
            lastError = nil
            step.changed(.player)
        case let .restore(saved, entries, policy, rate): restore(saved, entries: entries, policy: policy, idleRate: rate,
                                                                 &step)
        case let .resumeSaved(saved, policy): resumeSaved(saved, policy: policy, &step)
        case let .restoreQueue(entries, version, nextID, order):
            restoreQueue(entries: entries, version: version, nextID: nextID, shuffledOrder: order, &step)
        case let .rateResolved(generation, rate):
            guard case var .running(run) = transport, run.start.generation == generation, run.start.rate == nil else {
                return
            }
            run.start.rate = rate
            transport = .running(run)
        case let .idleRateResolved(entry, rate):
            if current == entry { idleRate = (entry, rate) }
        case .checkpoint: checkpoint(&step)
        case let .decodingStarted(entry, announcement): decodingStarted(entry, announcement: announcement, &step)
        case let .trackFailed(entry, reason): trackFailed(entry, reason: reason, &step)
        case let .trackAudible(entry, generation): trackAudible(entry, generation: generation, &step)
        case .ended: queueEnded(&step)
        case let .tempoChanged(tempo, entry, pass):
            let change = TrainerRun.PassTempo(entry: entry, pass: pass, percent: PlayerModes.percent(ofRatio: tempo))
            if let now = trainer.schedule(change) { modes.tempoPercent = now }
            step.changed(.player)
        case let .passHeard(entry, pass):
            if let now = trainer.passHeard(entry: entry, pass: pass, endedAt: tempoPercent) { modes.tempoPercent = now }
            step.changed(.player)
        case let .streamTags(entry, name, title): streamTagsChanged(entry, name: name, title: title, &step)
        }
    }

    // MARK: the transport

    /// Starts `entry` at `frame`; `rate`: the entry's source rate where the caller knows it (a seek, a restore);
    /// `countingIn`: with the count-in (a start from play, not a seek or a skip); `paused`: start paused or playing
    /// (nil: as the transport is now — a skip or a seek while paused stays paused). `songStarted`: a song starts here
    /// as MPD's SongStarted counts it (play, a skip, the entry after one removed, a border pause), which returns its
    /// priority to 0; false for a seek (even into another entry) and a restore.
    mutating func begin(_ entry: QueueEntry, atFrame frame: Int64 = 0, rate: Int? = nil, countingIn: Bool = false,
                        paused: Bool? = nil, songStarted: Bool = true, _ step: inout PlayerStep) {
        let known = position(step.heard)
        let rate = rate ?? (known.entryID == entry.id && known.sourceRate > 0 ? known.sourceRate : nil)
        if entry.id != transport.current {
            practiceTouched = false
            entryTempo.entered(entry.id)
        }
        pendingLoopJump = nil  // a start or a seek of its own supersedes a jump into a loop
        let paused = paused ?? (transport.state == .paused)
        let generation = transport.lastStartGeneration + 1
        step.order(.setPaused(paused))
        step.order(.start(item(entry), frame: frame, countIn: countingIn ? countIn(for: entry.id) : nil,
                          generation: generation))
        let start = RequestedStart(generation: generation, entry: entry.id, frame: frame, rate: rate)
        transport = .running(RunningTransport(entry: entry.id, paused: paused, start: start))
        // A skip to an entry whose rate is not known yet: the driver reads it now, off the actor, so that a seek that
        // follows (a skip and a seek while paused) finds it instead of waiting for the file's header.
        step.effects.resolveRateOf = rate == nil ? start : nil
        // MPD's SongStarted: a started entry's priority returns to 0.
        if songStarted && queue.startedPlaying(entry.id) { queueEdited(&step) }
        step.save.state()
        step.changed(.player)
    }

    /// Stops the engine and the transport, keeping the current entry as where `play` starts (or forgetting it: its
    /// entry was removed). `cursorAt`: where `play` starts afterwards instead (the entry after one removed while
    /// paused).
    mutating func stop(clearingCursor: Bool = false, cursorAt: EntryID? = nil, _ step: inout PlayerStep) {
        step.order(.stop)
        markStopped(clearingCursor: clearingCursor, cursorAt: cursorAt, &step)
    }

    /// The transport stopped (the engine has, or was just told to).
    mutating func markStopped(clearingCursor: Bool = false, cursorAt: EntryID? = nil, _ step: inout PlayerStep) {
        transport.moveCursor(to: cursorAt ?? (clearingCursor ? nil : transport.current))
        step.save.state()
        step.changed(.player)
    }

    /// Pauses or resumes; does nothing to a stopped transport (MPD: no effect when stopped).
    mutating func setPaused(_ paused: Bool, _ step: inout PlayerStep) {
        if transport.setPaused(paused) { step.order(.setPaused(paused)) }
        step.changed(.player)
    }

    /// Where a stopped player starts from (a skip while stopped, a restore); a running transport keeps its entry.
    mutating func moveCursor(to entry: EntryID?, _ step: inout PlayerStep) {
        guard transport.isStopped else { return }
        transport.moveCursor(to: entry)
        step.changed(.player)
    }

    /// The stream ran out after the current entry, as MPD 0.23 ends it: under `single` (not repeating the entry) it
    /// pauses at the start of the entry that follows (MPD's "border pause"; a `single oneshot` is then off); else the
    /// queue has played out and the player stops with no current entry. Under consume the entry finished leaves.
    mutating func queueEnded(_ step: inout PlayerStep) {
        guard let finished = current, !transport.isStopped else { return markStopped(&step) }
        let following = modes.single && modes.repeatMode != .track
            ? queue.entry(after: finished, wrap: modes.repeatMode == .queue) : nil
        if modes.singleOneshot {
            updateModes(&step) {
                $0.single = false
                $0.singleOneshot = false
            }
            step.changed(.options)
        }
        if modes.consume != .off, queue.entry(id: finished) != nil {
            queue.remove(id: finished)
            queueEdited(&step)
            if modes.consume == .oneshot { updateModes(&step) { $0.consume = .off } }
        }
        if let following, following.id != finished {
            step.order(.stop)
            begin(following, paused: true, &step)
        } else {
            markStopped(clearingCursor: true, &step)
        }
    }

    // MARK: modes, loop and queue

    /// Changes the modes and tells the engine what it plays by: the output gain, the count-in before each loop pass,
    /// and — when repeat, single or ReplayGain changed — what follows the current entry.
    mutating func updateModes(_ step: inout PlayerStep, _ body: (inout PlayerModes) -> Void) {
        let old = modes
        body(&modes)
        modes.volumeCeiling = max(0, min(100, modes.volumeCeiling))
        modes.volumeFloor = max(0, min(100, modes.volumeFloor))
        // The ceiling wins where a card's cap is below the floor: a cap is a promise about loudness.
        modes.volume = min(max(modes.volume, modes.volumeFloor), modes.volumeCeiling)
        if modes.outputGain != old.outputGain { step.order(.setGain(modes.outputGain)) }
        if modes.countIn != old.countIn { orderPassCountIn(&step) }
        if modes.repeatMode != old.repeatMode || modes.single != old.single || modes.replayGain != old.replayGain {
            step.upcomingChanged = true
        }
    }

    /// Moves a volume limit; a volume outside the new limits comes inside at once (saved, and clients told).
    private mutating func limitVolume(_ step: inout PlayerStep, _ body: (inout PlayerModes) -> Void) {
        let before = modes.volume
        updateModes(&step, body)
        guard modes.volume != before else { return }
        step.changed(.mixer)
        step.save.state()
    }

    /// Tells the engine the count-in before each loop pass (with the current entry's beat), or none.
    func orderPassCountIn(_ step: inout PlayerStep) {
        step.order(.setPassCountIn(modes.countIn?.beforeEachPass == true ? countIn(for: current) : nil))
    }

    /// Sets (nil: forgets) the listener's beat on `entry`; the count-in before each pass and the click follow it.
    /// A stopped box with no current entry makes `entry` current (the one play starts), so the beat is shown and saved.
    mutating func setBeat(_ new: TrackBeat?, on entry: EntryID, _ step: inout PlayerStep) {
        if current == nil { moveCursor(to: entry, &step) }
        let new = new.map { EntryBeat(entry: entry, beat: $0) }
        guard new != beat else { return }
        beat = new
        if entry == current { orderPassCountIn(&step) }
        if modes.metronome != nil { orderMetronome(&step) }  // the engine clicks by the beat of the entry it names
        step.changed(.player)
    }

    /// Tells the engine the click over the track: the plan, with the listener's beat for the entry it belongs to.
    func orderMetronome(_ step: inout PlayerStep) {
        step.order(.setMetronome(modes.metronome.map { MetronomeSetting(plan: $0, beat: beat.map {
            MetronomeSetting.EntryGrid(entry: $0.entry, beat: $0.beat)
        }) }))
    }

    /// Plays at `percent` of normal speed.
    mutating func setTempo(_ percent: Int, _ step: inout PlayerStep) {
        trainer.forgetScheduled()
        modes.tempoPercent = percent
        step.order(.setTempo(Double(percent) / 100))
        step.changed(.player)
    }

    /// Transposes by `cents` (0: none), independent of the tempo; nothing when already there.
    mutating func setTranspose(_ cents: Int, _ step: inout PlayerStep) {
        guard cents != modes.transposeCents else { return }
        modes.transposeCents = cents
        step.order(.setPitch(semitones: Double(cents) / 100))
        step.changed(.player)
    }

    /// Starts (its start tempo at once) or ends the step trainer; the engine reports each step as `tempoChanged`.
    mutating func setTrainer(_ plan: SpeedTrainerPlan?, _ step: inout PlayerStep) {
        trainer.forgetScheduled()
        trainer.plan = plan
        if let plan {
            trainer.lastPlan = plan
            modes.tempoPercent = plan.startPercent
        }
        step.order(.setTrainer(plan))
        step.changed(.player)
    }

    /// Replaces the loop marks and gives the engine the loop region (or takes it away).
    mutating func setLoopMarks(_ marks: LoopMarks, _ step: inout PlayerStep) {
        pendingLoopJump = nil
        if marks.loop != loopMarks.loop { trainer.forgetPasses() }
        if let loop = marks.loop {
            step.order(.setLoop(entry: loop.entry, loop.region))
        } else if let old = loopMarks.loop {
            step.order(.setLoop(entry: old.entry, nil))
        }
        loopMarks = marks
        step.changed(.player)
    }

    /// The queue changed: saved with the step, clients told, the engine told again what follows.
    func queueEdited(_ step: inout PlayerStep) {
        step.save.queue()
        step.upcomingChanged = true
        step.changed(.queue)
    }

    /// Tells the engine again what follows the entry being heard (after a mode or queue change).
    func refreshUpcoming(_ step: inout PlayerStep) {
        guard let entry = current, !transport.isStopped else { return }
        step.order(.setUpcoming(after: entry, modes.successor(of: entry, in: queue, afterFailure: false).map(item)))
    }

    /// A loop just set whose end is at or before what is heard sends playback to its start, a moment later, in the
    /// engine: until that is heard, saves hold the loop's start, not the place heard before the jump (the durability
    /// property test found a restart resume past B, the loop skipped).
    private mutating func notePendingLoopJump(_ heard: EnginePosition) {
        guard let loop = loopMarks.loop, !transport.isStopped, loop.entry == current else { return }
        let position = position(heard)
        guard position.entryID == loop.entry, position.sourceFrame >= loop.region.end else { return }
        pendingLoopJump = EntryFrame(entry: loop.entry, frame: loop.region.start)
    }

    /// The heard position to write (every checkpoint interval while playing); none when it would repeat the last one
    /// (paused, or the device waiting), while a start asked for is not heard yet, or while a jump into a loop is on
    /// its way.
    private mutating func checkpoint(_ step: inout PlayerStep) {
        guard !transport.isStopped, let current else { return }
        let heard = step.heard
        guard heard.entryID == current, heard.sourceRate > 0 else { return }
        // A start asked for (a seek, a skip) and not heard yet: the engine still reports the place before it, which
        // the command's own save has already superseded. Written now, with a write number taken after that save, it
        // would outrank it at the store: a real power cut in the kernel lab resumed 51 s into a track the listener
        // had just sought back to its start.
        if let asked = transport.requestedStart, heard.generation < asked.generation { return }
        if let jump = pendingLoopJump,
           !(jump.entry == current && loopMarks.loop.map { heard.sourceFrame >= $0.region.end } == true) {
            pendingLoopJump = nil  // the jump was heard (or the loop or the entry changed)
        }
        if pendingLoopJump != nil { return }  // the position heard is the one before the jump
        if let last = lastCheckpoint, last.entry == current, last.frame == heard.sourceFrame { return }
        lastCheckpoint = EntryFrame(entry: current, frame: heard.sourceFrame)
        step.effects.checkpoint = CheckpointWrite(entry: current, frame: heard.sourceFrame,
                                                  sampleRate: heard.sourceRate)
    }
}
