import AudioCore
import Decoders
import Engine
import FermataCore

/// The player's answers to each `ControlAction`, and the other commands front ends send: each one step.
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
        /// `rangeid` on the entry playing (MPD refuses it too).
        case currentEntryLocked
        /// A seek, or a loop mark, in a network stream (MPD's words).
        case notSeekable

        public var description: String {
            switch self {
            case .emptyQueue: "the queue is empty"
            case let .noSuchEntry(id): "no queue entry with id \(id)"
            case .notPlaying: "nothing is playing"
            case .loopNeedsA: "set loop point A first"
            case .loopBBeforeA: "loop point B must come after A"
            case let .invalidValue(what): "invalid value: \(what)"
            case .queueFull: "the queue holds at most \(Player.maxQueueLength) entries"
            case .currentEntryLocked: "Cannot edit the current song"
            case .notSeekable: "Not seekable"
            }
        }
    }

    /// Applies `action` and writes the new state durably once before returning (the client's `OK` promises it).
    /// What the step needs from a file is read first: the rate of an entry started but not heard yet (for actions
    /// in seconds), the rate of the entry a `seekid` goes to.
    public func perform(_ action: ControlAction) async throws {
        if case let .announce(text) = action { return try await announce(text) }
        if action.needsHeardRate { await resolveRequestedRate() }
        if case let .seekEntry(id, seconds) = action, state.transport.isStopped
            || state.position(engine.position()).entryID != id, let entry = state.queue.entry(id: id) {
            // The entry's file gives its rate; its URI cannot change (an id names one file), and the step checks the
            // entry is still queued.
            let rate = await sampleRate(ofURI: entry.uri)
            try await step(.seekEntry(id, seconds: seconds, rate: rate))
            return
        }
        if case .playSection = action, state.transport.isStopped, let entry = state.entryToStart {
            // The rate turns the section's milliseconds into frames; the sections come from the practice memory when
            // nobody gave them for that entry yet; the step checks the entry is still the one.
            let rate = await sampleRate(ofURI: entry.uri)
            var sections: [PracticeSection]?
            if state.sections(for: entry.id).isEmpty, let sectionSource { sections = await sectionSource(entry.uri) }
            try await step(.action(action, read: FileFacts(entry: entry.id, rate: rate, sections: sections)))
            return
        }
        if case .loopLastBars = action, let current = state.current, state.beat(for: current) == nil,
           let entry = state.queue.entry(id: current) {
            // The file's BPM tag; the step uses it only if no beat was set meanwhile (the listener's wins).
            let file = path(for: entry.uri)
            let tagged = await BlockingWork.run { (try? TagReader.read(path: file))?.bpm }
            try await step(.action(action, read: FileFacts(entry: current, taggedBPM: tagged)))
            return
        }
        try await step(.action(action))
    }

    /// Sets the highest volume any path may set (buttons, encoder, clients, the CLI, a card); a volume above it comes
    /// down to it at once (saved, and clients told).
    public func setVolumeCeiling(_ value: Int) async {
        await stepLogged(.volumeCeiling(value))
    }

    /// Sets the lowest volume any path may set (`audio.volume_min`; 0: none); a volume below it comes up to it at once
    /// (saved, and clients told). A ceiling below it wins.
    public func setVolumeFloor(_ value: Int) async {
        await stepLogged(.volumeFloor(value))
    }

    /// Sets the loop of `entry` before or during playback (frames of that entry's source).
    public func setLoop(entry: EntryID, _ region: LoopRegion) async throws {
        try await step(.setLoop(entry: entry, region))
    }

    /// Starts the step trainer (tempos in percent); the start tempo applies at once. Throws a plan out of range.
    public func setSpeedTrainer(startPercent: Int, stepPercent: Int, everyPasses: Int, ceilingPercent: Int,
                                fallsBack: Bool = false) async throws {
        try await perform(.speedTrainer(SpeedTrainerPlan(startPercent: startPercent, stepPercent: stepPercent,
                                                         everyPasses: everyPasses, ceilingPercent: ceilingPercent,
                                                         fallsBack: fallsBack)))
    }

    public func clearSpeedTrainer() async { await stepLogged(.speedTrainer(nil)) }

    /// Forgets the last error (MPD `clearerror`).
    public func clearError() async { await stepLogged(.clearError) }

    /// Speaks `text`, or what is playing: "Title, by Artist; loop from 1 minutes 2 to 1 minutes 10; 80 percent speed".
    /// Words, not state: nothing is saved.
    private func announce(_ text: String?) async throws {
        var words = text ?? ""
        if text == nil {
            guard let described = await describeCurrentEntry() else { throw ActionError.notPlaying }
            words = described
        }
        if let speech = await speak(words) { engine.announce(speech, duck: state.modes.announcements.duck) }
    }

    /// "Title, by Artist; loop from …; 80 percent speed" of the current entry. The title is read off the actor; the
    /// loop, the speed and the rate are read after it, and only if the same entry is still current (another client's
    /// skip during the read starts over with the new entry; three skips in a row give up). The loop is spoken only
    /// when the engine's rate is that entry's.
    private func describeCurrentEntry() async -> String? {
        for _ in 0..<3 {
            guard let entry = state.current.flatMap(state.queue.entry(id:)) else { return nil }
            var words = await trackTitle(entry)
            guard state.current == entry.id else { continue }
            let heard = engine.position()
            if let loop = state.loopMarks.loop, loop.entry == entry.id, heard.entryID == entry.id,
               heard.sourceRate > 0 {
                let rate = Double(heard.sourceRate)
                func spoken(_ frame: Int64) -> String {
                    let seconds = Int(Double(frame) / rate)
                    return seconds >= 60 ? "\(seconds / 60) minutes \(seconds % 60)" : "\(seconds) seconds"
                }
                words += "; loop from \(spoken(loop.region.start)) to \(spoken(loop.region.end))"
            }
            if state.modes.tempoPercent != 100 { words += "; \(state.modes.tempoPercent) percent speed" }
            return words
        }
        return nil
    }

    /// A step whose command cannot fail (an engine event, a restore); a failure would be a defect, logged.
    func stepLogged(_ command: PlayerCommand) async {
        do {
            try await step(command)
        } catch {
            logger.error("player: a step that cannot fail failed: \(error)")
        }
    }
}
