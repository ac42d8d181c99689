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

        public var description: String {
            switch self {
            case .emptyQueue: "the queue is empty"
            case let .noSuchEntry(id): "no queue entry with id \(id)"
            case .notPlaying: "nothing is playing"
            case .loopNeedsA: "set loop point A first"
            case .loopBBeforeA: "loop point B must come after A"
            case let .invalidValue(what): "invalid value: \(what)"
            }
        }
    }

    public func perform(_ action: ControlAction) async throws {
        switch action {
        case .play:
            if !stopped { setPaused(false); return }
            guard let entry = current.flatMap(queue.entry(id:)) ?? queue.firstInPlayOrder else {
                throw ActionError.emptyQueue
            }
            engine.setPaused(false)
            await begin(entry, countingIn: true)
        case let .playEntry(id):
            guard let entry = queue.entry(id: id) else { throw ActionError.noSuchEntry(id) }
            engine.setPaused(false)
            await begin(entry, countingIn: true)
        case .pause: setPaused(true)
        case .resume: setPaused(false)
        case .togglePause: if !stopped { setPaused(!engine.isPauseRequested) }  // MPD: no effect when stopped
        case .playPause:
            if stopped { return try await perform(.play) }  // saves its own snapshot
            setPaused(!engine.isPauseRequested)
        case .stop:
            engine.stop()
            await markStopped()
        case .next: try await skip(forward: true)
        case .previous: try await skip(forward: false)
        case let .seek(seconds): try await seek(to: seconds)
        case let .seekBy(delta): try await seek(to: currentPosition().seconds + delta)
        case let .seekEntry(id, seconds):
            if stopped || currentPosition().entryID != id {
                guard let entry = queue.entry(id: id) else { throw ActionError.noSuchEntry(id) }
                engine.setPaused(false)
                await begin(entry, countingIn: true)
            }
            try await seek(to: seconds)
        case let .setVolume(value): setVolume(value)
        case let .changeVolume(delta): setVolume(volume + min(100, max(-100, delta)))
        case let .setRepeat(mode): repeatMode = mode; optionsChanged()
        case let .setSingle(on): single = on; optionsChanged()
        case let .setReplayGain(mode): replayGainMode = mode; optionsChanged()
        case let .setTempo(percent):
            guard (50...150).contains(percent) else { throw ActionError.invalidValue("tempo must be 50-150 %") }
            setTempo(percent)
        case let .changeTempo(delta): setTempo(min(150, max(50, tempoPercent + min(100, max(-100, delta)))))
        case let .speedTrainer(plan?):
            if let problem = plan.problem { throw ActionError.invalidValue(problem) }
            setSpeedTrainer(startPercent: plan.startPercent, stepPercent: plan.stepPercent,
                            everyPasses: plan.everyPasses, ceilingPercent: plan.ceilingPercent)
        case .speedTrainer(nil): clearSpeedTrainer()
        case let .announce(text): try await announce(text)
        case let .setAnnouncements(duck, onTrackChange):
            announceDucking = duck
            announceTrackChanges = onTrackChange
            changeSink.yield(.options)
        case let .countIn(plan):
            if let plan, plan.beats > 0, let problem = plan.problem { throw ActionError.invalidValue(problem) }
            countIn = plan.flatMap { $0.beats > 0 ? $0 : nil }
            engine.setPassCountIn(countIn?.beforeEachPass == true ? countIn : nil)
            changeSink.yield(.options)
        case .loopSetA: try await setLoopA()
        case .loopSetB: try await setLoopB()
        case .loopCycle:
            if loop != nil { clearLoop() } else if loopPendingA != nil { try await setLoopB() } else { try await setLoopA() }
        case .loopClear: clearLoop()
        case let .loopNudge(endpoint, ms): try nudgeLoop(endpoint, milliseconds: ms)
        case let .setLoop(start, end, count):
            let heard = try await heardTrack()
            let region = LoopRegion(start: FrameTime.frames(seconds: start, rate: heard.rate),
                                    end: FrameTime.frames(seconds: end, rate: heard.rate), repeatCount: count)
            try applyLoop(entry: heard.entry, region)
        }
        await persistence?.saveSnapshot(snapshot())
    }

    private func setPaused(_ paused: Bool) {
        engine.setPaused(paused)
        transportChanged()
        changeSink.yield(.player)
    }

    private func setVolume(_ value: Int) {
        volume = max(0, min(100, value))
        engine.setGain(muted ? 0 : VolumeCurve.gain(forVolume: volume))
        changeSink.yield(.mixer)
    }

    /// Silences the output without stopping the stream (and restores the volume).
    public func setMuted(_ on: Bool) {
        muted = on
        engine.setGain(muted ? 0 : VolumeCurve.gain(forVolume: volume))
    }

    private func skip(forward: Bool) async throws {
        guard let from = current else { throw ActionError.notPlaying }
        if !forward && currentPosition().seconds > 3 && !stopped {
            try await seek(to: 0)
            return
        }
        let wrap = repeatMode == .queue
        guard let target = forward ? queue.entry(after: from, wrap: wrap) : queue.entry(before: from, wrap: wrap) else {
            if forward {
                engine.stop()
                await markStopped()
            }
            return
        }
        if stopped {
            current = target.id
            changeSink.yield(.player)
        } else {
            await begin(target)
        }
    }

    private func seek(to seconds: Double) async throws {
        let heard = try await heardTrack()
        guard let entry = queue.entry(id: heard.entry) else { throw ActionError.noSuchEntry(heard.entry) }
        await begin(entry, atFrame: FrameTime.frames(seconds: seconds, rate: heard.rate))
    }

    /// The entry heard now (or just asked for: `currentPosition`) and its source rate.
    private func heardTrack() async throws -> (entry: EntryID, rate: Int, frame: Int64) {
        await resolveRequestedRate()
        let position = currentPosition()
        guard !stopped, let entry = position.entryID ?? current, position.sourceRate > 0 else {
            throw ActionError.notPlaying
        }
        return (entry, position.sourceRate, position.sourceFrame)
    }

    private func setLoopA() async throws {
        let heard = try await heardTrack()
        if let existing = loop, existing.entry == heard.entry, heard.frame < existing.region.end {
            try applyLoop(entry: heard.entry, LoopRegion(start: heard.frame, end: existing.region.end))
        } else {
            clearLoop()
            loopPendingA = EntryFrame(entry: heard.entry, frame: heard.frame)
        }
    }

    private func setLoopB() async throws {
        let heard = try await heardTrack()
        let start: Int64
        if let pending = loopPendingA, pending.entry == heard.entry {
            start = pending.frame
        } else if let existing = loop, existing.entry == heard.entry {
            start = existing.region.start
        } else {
            throw ActionError.loopNeedsA
        }
        guard heard.frame > start else { throw ActionError.loopBBeforeA }
        try applyLoop(entry: heard.entry, LoopRegion(start: start, end: heard.frame))
    }

    private func nudgeLoop(_ endpoint: LoopEndpoint, milliseconds: Int) throws {
        guard var current = loop else { throw ActionError.loopNeedsA }
        let delta = FrameTime.offset(milliseconds: milliseconds, rate: max(1, engine.position().sourceRate))
        switch endpoint {
        case .a: current.region.start = FrameTime.moved(current.region.start, by: delta)
        case .b: current.region.end = FrameTime.moved(current.region.end, by: delta)
        }
        try applyLoop(entry: current.entry, current.region)
    }

    /// Sets the loop of `entry` before or during playback (frames of that entry's source).
    public func setLoop(entry: EntryID, _ region: LoopRegion) throws {
        guard queue.entry(id: entry) != nil else { throw ActionError.noSuchEntry(entry) }
        try applyLoop(entry: entry, region)
    }

    func applyLoop(entry: EntryID, _ region: LoopRegion) throws {
        guard region.start >= 0, region.end > region.start else { throw ActionError.loopBBeforeA }
        loop = EntryLoop(entry: entry, region: region)
        loopPendingA = nil
        engine.setLoop(entry: entry, region)
        changeSink.yield(.player)
    }

    private func clearLoop() {
        if let existing = loop { engine.setLoop(entry: existing.entry, nil) }
        loop = nil
        loopPendingA = nil
        changeSink.yield(.player)
    }

    /// Tells the engine again what follows the entry being heard (after a mode or queue change).
    func refreshUpcoming() {
        guard let entry = current, !stopped else { return }
        engine.setUpcoming(after: entry, successor(of: entry, afterFailure: false))
    }

    /// Speaks `text`, or what is playing: "Title, by Artist; loop from 1 minutes 2 to 1 minutes 10; 80 percent speed".
    private func announce(_ text: String?) async throws {
        var words = text ?? ""
        if text == nil {
            guard let entry = current.flatMap(queue.entry(id:)) else { throw ActionError.notPlaying }
            words = await trackTitle(entry)
            let rate = Double(max(1, engine.position().sourceRate))
            if let region = loop?.region, loop?.entry == entry.id {
                func spoken(_ frame: Int64) -> String {
                    let seconds = Int(Double(frame) / rate)
                    return seconds >= 60 ? "\(seconds / 60) minutes \(seconds % 60)" : "\(seconds) seconds"
                }
                words += "; loop from \(spoken(region.start)) to \(spoken(region.end))"
            }
            if tempoPercent != 100 { words += "; \(tempoPercent) percent speed" }
        }
        if let speech = await speak(words) { engine.announce(speech, duck: announceDucking) }
    }

    /// "Title, by Artist" from the file's tags (the file name without them), read on `BlockingWork`: the actor does
    /// no file I/O.
    nonisolated func trackTitle(_ entry: QueueEntry) async -> String {
        let file = path(for: entry.uri)
        let tags = await BlockingWork.run { try? TagReader.read(path: file) }
        let title = tags?.title ?? String(entry.uri.split(separator: "/").last ?? "")
        return tags?.artist.map { "\(title), by \($0)" } ?? title
    }

    /// The rendered words, or nil with the reason logged (each reason once).
    func speak(_ text: String) async -> Speech? {
        switch await speaker.render(text) {
        case let .success(speech): return speech
        case let .failure(error):
            if announcementProblems.insert(error.reason).inserted { logger.warning("announcement: \(error.reason)") }
            return nil
        }
    }

    /// Applies a speed in percent, rounded to the 5 % steps a musician dials in.
    private func setTempo(_ percent: Int) {
        let stepped = min(150, max(50, Int((Double(percent) / 5).rounded()) * 5))
        guard stepped != tempoPercent else { return }
        tempoPercent = stepped
        engine.setTempo(Double(stepped) / 100)
        changeSink.yield(.player)
    }

    /// Starts or ends the speed trainer (tempos in percent); the start tempo applies at once.
    public func setSpeedTrainer(startPercent: Int, stepPercent: Int, everyPasses: Int, ceilingPercent: Int) {
        tempoPercent = startPercent
        engine.setTrainer(SpeedTrainer(start: Double(startPercent) / 100, step: Double(stepPercent) / 100,
                                       everyPasses: everyPasses, ceiling: Double(ceilingPercent) / 100))
        changeSink.yield(.player)
    }

    public func clearSpeedTrainer() { engine.setTrainer(nil) }

    private func optionsChanged() {
        refreshUpcoming()
        changeSink.yield(.options)
    }
}
