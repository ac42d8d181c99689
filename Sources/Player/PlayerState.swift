import AudioCore
import Engine
import FermataCore

/// Everything the player knows, as one value: the queue, the transport, the modes, the loop marks and the practice
/// bookkeeping. It changes only through `reduce` (`PlayerState+Reduce.swift`): one `PlayerCommand` in, a new state
/// and its `PlayerEffects` out — the engine orders, the change notifications and at most one save — with no actor,
/// thread, engine or file in sight, so every command's effects are tested as values (`PlayerReducerTests`).
///
/// The reads here (status, snapshot, what follows an entry) take what the engine hears as an argument: the driver
/// (`Player`) reads `engine.position()` once per step and passes it in.
///
/// Threads: a value; the `Player` actor owns the live one.
struct PlayerState {
    var queue = PlayQueue()
    var modes = PlayerModes()
    var transport = PlayerTransport.initial
    var loopMarks = LoopMarks.none
    var lastError: String?
    /// Entries that could not be played, with the reason (typed decoder error as text).
    var failures: [EntryID: String] = [:]
    /// What each network stream in the queue said of itself last (not saved: a stream says it again).
    var streamTags: [EntryID: StreamTags] = [:]
    /// A command changed the tempo or the loop since the current entry started: a practice memory arriving now is
    /// refused (the listener's change wins).
    var practiceTouched = false
    /// The listener's beat (tapped or set) and the entry it belongs to: it counts on that entry only.
    var beat: EntryBeat?
    /// The current track's sections (`setSections`), for `playSection`.
    var sections: EntrySections?
    /// Which entry's own tempo (its `PlaySpan`'s) the listener overrode: the rule `EntryTempo` holds, which the engine's
    /// decoder machine applies to what it plays.
    var entryTempo = EntryTempo()
    /// The click as it was last on, for its button to turn it on again the same way.
    var lastMetronome: MetronomePlan?
    /// The step trainer: its plan, the tempos it set ahead of the listener, the last pass heard to its end.
    var trainer = TrainerRun()
    /// The tap-tempo button's taps so far.
    var taps = TapTempo()
    /// A loop was set behind what is heard: the engine is about to jump to its start (`notePendingLoopJump`).
    var pendingLoopJump: EntryFrame?
    /// The source rate of the entry a restore left current without starting it (a stopped restart), when that entry
    /// has a loop: the status needs it to turn the loop's frames into seconds before anything is heard.
    var idleRate: (entry: EntryID, rate: Int)?
    /// The last position a checkpoint wrote (a paused player's is not written again).
    var lastCheckpoint: EntryFrame?
    /// Shuffles and random order draw from it (a seeded generator in tests).
    var random: any RandomNumberGenerator = SystemRandomNumberGenerator()
    /// Where relative URIs are found (nil: URIs are paths).
    let musicDirectory: String?

    init(musicDirectory: String? = nil, random: any RandomNumberGenerator = SystemRandomNumberGenerator()) {
        self.musicDirectory = musicDirectory
        self.random = random
    }

    /// The listener's beat on `entry` (nil: none, or set on another entry).
    func beat(for entry: EntryID?) -> TrackBeat? {
        guard let beat, beat.entry == entry else { return nil }
        return beat.beat
    }

    /// The sections of `entry` (none: none known, or known for another entry).
    func sections(for entry: EntryID?) -> [PracticeSection] {
        guard let sections, sections.entry == entry else { return [] }
        return sections.list
    }

    /// The section of `entry` whose region is the loop now, its ends compared in milliseconds at `rate`.
    func activeSection(rate: Int, on entry: EntryID?) -> Int? {
        guard rate > 0, let loop = loopMarks.loop, loop.entry == entry else { return nil }
        let start = FrameTime.milliseconds(frames: loop.region.start, rate: rate)
        let end = FrameTime.milliseconds(frames: loop.region.end, rate: rate)
        return sections(for: entry).firstIndex { $0.matches(startMilliseconds: start, endMilliseconds: end) }
    }

    /// The tempo heard: the current entry's own (a section queued with its tempo), else the listener's.
    var tempoPercent: Int { tempoPercent(on: current.flatMap(queue.entry(id:))) }

    /// The tempo heard on `entry`: its own unless the listener changed it while it played, else the listener's.
    func tempoPercent(on entry: QueueEntry?) -> Int {
        guard let entry else { return modes.tempoPercent }
        return entryTempo.tempo(of: entry.id, own: entry.span?.tempoPercent, listener: modes.tempoPercent)
    }

    /// The count-in as the engine gets it for `entry`: with the listener's beat on that entry when the plan names no
    /// tempo of its own (an explicit `count_in 4 100` wins; else tapped or set, else the file's tag in the engine).
    func countIn(for entry: EntryID?) -> CountInPlan? {
        guard var plan = modes.countIn else { return nil }
        if plan.bpm == nil { plan.bpm = beat(for: entry)?.bpm }
        return plan
    }

    /// The entry `play` starts on a stopped player: the current one, or the first in play order.
    var entryToStart: QueueEntry? { current.flatMap(queue.entry(id:)) ?? queue.firstInPlayOrder }

    /// The entry the listener hears (or heard last), or where a stopped player starts.
    var current: EntryID? { transport.current }

    /// The entry that will play after the current one, under the current modes.
    var upcomingEntry: QueueEntry? {
        current.flatMap { modes.successor(of: $0, in: queue, afterFailure: false) }
    }

    /// The entry MPD's status names as next (its GetNextPosition): under `single` the entry after the current one,
    /// where playback pauses (MPD's border pause), not none.
    var nextForStatus: QueueEntry? {
        guard let current else { return nil }
        if modes.single && modes.repeatMode != .track {
            return queue.entry(after: current, wrap: modes.repeatMode == .queue)
        }
        return upcomingEntry
    }

    /// The queue, the current and the next entry as the protocol shows them.
    var queueView: QueueView {
        QueueView(queue: queue, current: current, upcoming: nextForStatus?.id, consume: modes.consume != .off,
                  consumeOneshot: modes.consume == .oneshot, streams: streamTags)
    }

    // MARK: what the engine is given

    func path(for uri: String) -> String { Self.path(for: uri, in: musicDirectory) }

    /// A queue URI as a file path: relative ones under `musicDirectory`, absolute ones and stream URLs as they are.
    static func path(for uri: String, in musicDirectory: String?) -> String {
        guard !uri.hasPrefix("/"), !PlayableItem.isLive(uri), let musicDirectory else { return uri }
        return musicDirectory + "/" + uri
    }

    func item(_ entry: QueueEntry) -> PlayableItem {
        PlayableItem(entryID: entry.id, path: path(for: entry.uri),
                     replayGain: modes.replayGain(for: entry, shuffled: queue.shuffledOrder != nil), span: entry.span)
    }

    // MARK: position

    /// What is heard (`heard`, the engine's) or, while a start just asked for is not audible yet (paused after a seek
    /// or a skip, or still filling the device), that start: the position `status`, `previous`, seeks, loop marks and
    /// snapshots act on, so that two presses in a row while paused build on each other instead of on a stale heard
    /// position.
    func position(_ heard: EnginePosition) -> EnginePosition {
        var position = heard
        if let asked = transport.requestedStart, heard.generation < asked.generation {
            position.entryID = asked.entry
            position.sourceFrame = asked.frame
            if let rate = asked.rate { position.sourceRate = rate }
        }
        return position
    }

    func status(_ engineHeard: EnginePosition) -> PlayerStatus {
        let heard = position(engineHeard)
        let stopped = transport.isStopped
        var status = PlayerStatus()
        status.state = transport.state
        // Stopped, the cursor is the truth (the engine may not have taken in a stop, or a clear, just asked).
        status.entryID = stopped ? current : heard.entryID ?? current
        // One look-up (a linear one: `status` is polled, and the queue may hold 100,000 entries).
        let entry = status.entryID.flatMap(queue.entry(id:))
        status.path = entry?.uri
        status.elapsedFrames = stopped ? 0 : heard.sourceFrame
        status.elapsed = stopped ? 0 : heard.seconds
        status.sourceSampleRate = heard.sourceRate > 0 ? heard.sourceRate
            : idleRate.flatMap { $0.entry == status.entryID ? $0.rate : nil } ?? 0
        status.volume = modes.volume
        status.repeatMode = modes.repeatMode
        status.single = modes.single
        status.singleOneshot = modes.singleOneshot
        status.tempoPercent = tempoPercent(on: entry)
        status.transposeCents = modes.transposeCents
        status.span = entry?.span
        status.beat = beat(for: status.entryID)
        status.metronome = modes.metronome
        status.countIn = modes.countIn
        status.sections = sections(for: status.entryID)
        status.activeSection = activeSection(rate: status.sourceSampleRate, on: status.entryID)
        status.loop = loopMarks.loop.flatMap { $0.entry == status.entryID ? $0.region : nil }
        if status.loop != nil, heard.entryID == status.entryID { status.loopPass = engineHeard.pass }
        status.trainer = trainer.plan
        if let completed = trainer.completed, completed.entry == status.entryID, status.loop != nil || status.span != nil {
            status.lastPassTempoPercent = completed.percent
        }
        status.loopPendingA = loopMarks.pendingA?.frame
        status.replayGain = modes.replayGain
        status.outputFormat = heard.deviceFormat?.description
        status.lastError = heard.waitingForDevice ? "waiting for the audio device" : lastError
        if let entry, PlayableItem.isLive(entry.uri) { status.stream = streamTags[entry.id] ?? StreamTags() }
        return status
    }

    /// What must survive a power cut, at the position heard (or asked for).
    func snapshot(_ engineHeard: EnginePosition) -> PlayerSnapshot {
        var s = PlayerSnapshot()
        let heard = position(engineHeard)
        s.transport = switch transport.state {
        case .stopped: .stopped
        case .paused: .paused
        case .playing: .playing
        }
        s.currentEntry = current
        s.positionFrames = heard.entryID == current ? heard.sourceFrame : 0
        // A jump into a loop just set, not heard yet: where playback is about to be.
        if let jump = pendingLoopJump, jump.entry == current, heard.entryID == jump.entry,
           let loop = loopMarks.loop, loop.entry == jump.entry, heard.sourceFrame >= loop.region.end {
            s.positionFrames = jump.frame
        }
        s.sampleRate = heard.sourceRate
        s.volume = modes.volume
        s.tempoPercent = modes.tempoPercent
        s.transposeCents = modes.transposeCents
        s.beat = beat(for: current)
        s.metronome = modes.metronome
        s.repeatMode = modes.repeatMode
        // The oneshot modes are one command's "once": not kept across a restart (as MPD's state file keeps neither).
        s.single = modes.single && !modes.singleOneshot
        s.consume = modes.consume == .on
        s.replayGain = modes.replayGain
        s.loop = loopMarks.loop
        s.queueVersion = queue.version
        s.nextEntryID = queue.nextID
        return s
    }
}
