import AudioCore
import Decoders
import Engine
import FermataCore

/// The reducer's queue edits (MPD `add`, `delete`, `move`, `swap`, `clear`, `shuffle`, `random`, `consume`, `prio`)
/// and restore. Each edit is saved with its step.
extension PlayerState {
    /// Inserts at `position` (nil: the end); throws `queueFull` (and adds nothing) past `Player.maxQueueLength`.
    mutating func insert(uris: [String], replayGain gains: [ReplayGainInfo], spans: [PlaySpan?] = [], at position: Int?,
                         _ step: inout PlayerStep) throws {
        guard gains.count == uris.count else { throw Player.ActionError.invalidValue("one ReplayGain value per URI") }
        guard spans.isEmpty || spans.count == uris.count else { throw Player.ActionError.invalidValue("one range per URI") }
        if let problem = spans.lazy.compactMap({ $0?.problem }).first { throw Player.ActionError.invalidValue(problem) }
        guard uris.count <= Player.maxQueueLength - queue.count else { throw Player.ActionError.queueFull }
        let at = min(max(0, position ?? queue.count), queue.count)
        // In random order new entries go among those still to play (after the one queued next, as MPD).
        let playingAfter = transport.isStopped ? current : (upcomingEntry?.id ?? current)
        step.effects.added = queue.insert(uris: uris, replayGain: gains, spans: spans.isEmpty ? nil : spans, at: at,
                                          playingAfter: playingAfter, using: &random)
        queueEdited(&step)
    }

    /// Sets the part of its file an entry plays (MPD `rangeid`). As MPD, not the entry playing ("Cannot edit the
    /// current song"); the entry queued next is handed to the engine again (`queueEdited`), which decodes it anew
    /// if it had begun.
    mutating func setSpan(_ span: PlaySpan?, of entry: EntryID, _ step: inout PlayerStep) throws {
        guard queue.entry(id: entry) != nil else { throw Player.ActionError.noSuchEntry(entry) }
        if let problem = span?.problem { throw Player.ActionError.invalidValue(problem) }
        guard transport.isStopped || entry != current else { throw Player.ActionError.currentEntryLocked }
        let before = queue.version
        queue.setSpan(span, of: entry)
        if queue.version != before { queueEdited(&step) }
    }

    /// Removes `ids`; as MPD's DeletePosition, removing the current entry while playing goes on with the entry after
    /// those removed; paused it stops there; stopped, the cursor moves there.
    mutating func remove(_ ids: Set<EntryID>, _ step: inout PlayerStep) throws {
        if let missing = ids.first(where: { queue.entry(id: $0) == nil }) {
            throw Player.ActionError.noSuchEntry(missing)
        }
        guard !ids.isEmpty else { return }
        let removingCurrent = current.map(ids.contains) ?? false
        let next = removingCurrent ? entryAfterRemoving(ids) : nil
        queue.remove(ids: ids)
        queueEdited(&step)
        guard removingCurrent else { return }
        if let next, transport.isPlaying {
            begin(next, &step)
        } else if transport.isStopped {
            moveCursor(to: next?.id, &step)
        } else {
            stop(clearingCursor: true, cursorAt: next?.id, &step)
        }
    }

    /// The first entry after the current one in play order that is not being removed (none under track repeat:
    /// MPD's repeat with single ends there).
    private func entryAfterRemoving(_ ids: Set<EntryID>) -> QueueEntry? {
        guard var at = current, modes.repeatMode != .track else { return nil }
        for _ in 0..<queue.count {
            guard let next = queue.entry(after: at, wrap: modes.repeatMode != .off), next.id != current else {
                return nil
            }
            if !ids.contains(next.id) { return next }
            at = next.id
        }
        return nil
    }

    mutating func move(_ range: Range<Int>, to destination: Int, _ step: inout PlayerStep) throws {
        guard range.lowerBound >= 0, range.upperBound <= queue.count, destination >= 0,
              destination + range.count <= queue.count else { throw Player.ActionError.invalidValue("bad song index") }
        queue.move(range, to: destination)
        queueEdited(&step)
    }

    /// Exchanges the entries at two positions (MPD `swap`); the playing entry plays on wherever it now stands.
    mutating func swapAt(_ first: Int, _ second: Int, _ step: inout PlayerStep) throws {
        guard (0..<queue.count).contains(first), (0..<queue.count).contains(second) else {
            throw Player.ActionError.invalidValue("bad song index")
        }
        queue.swapAt(first, second)
        queueEdited(&step)
    }

    /// Empties the queue and stops.
    mutating func clear(_ step: inout PlayerStep) {
        queue.clear()
        queueEdited(&step)
        if transport.isStopped {
            moveCursor(to: nil, &step)
        } else {
            stop(clearingCursor: true, &step)
        }
    }

    /// Permanently reorders `range` of the queue (MPD `shuffle`): the entry playing, when in it, goes to its start
    /// and the rest is shuffled; a stopped player forgets where it stood (MPD's Shuffle).
    mutating func shuffle(_ range: Range<Int>?, _ step: inout PlayerStep) {
        let playing = transport.isStopped ? nil : current
        moveCursor(to: nil, &step)
        queue.shuffle(range, keepingFirst: playing, using: &random)
        queueEdited(&step)
    }

    /// Plays in a shuffled order (kept across restarts) or back in list order (MPD `random`). As MPD's `SetRandom`:
    /// the entry playing stays first in the new order; a stopped player forgets where it stood (`play` then starts
    /// the new order from its beginning).
    mutating func setShuffled(_ on: Bool, _ step: inout PlayerStep) {
        guard on != queue.isShuffled else { return }
        let first = transport.isStopped ? nil : current
        if on { moveCursor(to: nil, &step) }
        queue.setShuffled(on, first: first, using: &random)
        queueEdited(&step)
        step.changed(.options)
    }

    /// MPD's `single oneshot`: stop after the current entry once, then single is off again. Under repeat (MPD's
    /// repeat with single: the entry repeats) it stays until repeat is switched off and it has stopped once.
    mutating func singleOneshot(_ step: inout PlayerStep) {
        updateModes(&step) {
            if $0.repeatMode == .queue { $0.repeatMode = .track }
            $0.single = true
            $0.singleOneshot = true
        }
        step.save.state()
        step.changed(.options)
    }

    /// Consume on, off, or `oneshot`: on until one entry has been consumed (MPD 0.24's `consume oneshot`).
    mutating func setConsume(_ mode: ConsumeMode, _ step: inout PlayerStep) {
        updateModes(&step) { $0.consume = mode }
        step.save.state()
        step.changed(.options)
    }

    /// Sets MPD's priority of the entries at `ranges` (`prio`, `prioid`); in random order they move as MPD moves
    /// them. Priority above 0 changes nothing in list order.
    mutating func setPriority(_ priority: UInt8, _ ranges: [Range<Int>], _ step: inout PlayerStep) {
        var changed = false
        for range in ranges {
            changed = queue.setPriority(priority, positions: range, current: current, using: &random) || changed
        }
        if changed { queueEdited(&step) }
    }

    // MARK: restore

    /// Puts back the saved modes and the current entry, and starts audio at the saved position when the policy and the
    /// saved transport say so. `entries`: at least the current and next entries (`restoreQueue` brings the rest).
    mutating func restore(_ saved: PlayerSnapshot, entries: [QueueEntry], policy: ResumePolicy, idleRate rate: Int?,
                          _ step: inout PlayerStep) {
        updateModes(&step) {
            $0.repeatMode = saved.repeatMode
            $0.single = saved.single
            $0.consume = saved.consume ? .on : .off
            $0.replayGain = saved.replayGain
            $0.volume = saved.volume
        }
        // A value a hand-edited row holds outside 50–150 % is stepped into range, as a tempo command would be.
        let tempo = PlayerModes.steppedTempo(min(150, max(50, saved.tempoPercent)))
        if tempo != modes.tempoPercent { setTempo(tempo, &step) }
        setTranspose(min(Transposition.range.upperBound, max(Transposition.range.lowerBound, saved.transposeCents)), &step)
        queue = PlayQueue(entries: entries, nextID: saved.nextEntryID, version: saved.queueVersion, shuffledOrder: nil)
        setLoopMarks(saved.loop.map(LoopMarks.set) ?? .none, &step)
        moveCursor(to: saved.currentEntry, &step)
        if let entry = saved.currentEntry, let saved = saved.beat, saved.problem == nil { setBeat(saved, on: entry, &step) }
        if let plan = saved.metronome, plan.problem == nil { changeMetronome(plan, &step) }
        idleRate = nil
        if let loop = saved.loop, loop.entry == saved.currentEntry, let rate = saved.sampleRate > 0 ? saved.sampleRate : rate {
            idleRate = (loop.entry, rate)
        }
        resumeSaved(saved, policy: policy, &step)
    }

    /// Starts the saved entry at its saved position as `restore` would have, when nothing has happened since: the
    /// player is still stopped on that entry (the restore could not play then because the music directory was not
    /// there yet). Does nothing once someone has played, stopped or edited their way elsewhere.
    mutating func resumeSaved(_ saved: PlayerSnapshot, policy: ResumePolicy, _ step: inout PlayerStep) {
        guard transport.isStopped, saved.transport != .stopped, policy != .off, let id = saved.currentEntry,
              current == id, let entry = queue.entry(id: id) else { return }
        begin(entry, atFrame: saved.positionFrames, rate: saved.sampleRate > 0 ? saved.sampleRate : nil,
              paused: saved.transport == .paused || policy == .paused, songStarted: false, &step)
    }

    /// Replaces the queue with the whole saved list (after `restore` started audio from the first few entries).
    mutating func restoreQueue(entries: [QueueEntry], version: Int, nextID: EntryID, shuffledOrder: [EntryID]?,
                               _ step: inout PlayerStep) {
        queue = PlayQueue(entries: entries, nextID: nextID, version: version, shuffledOrder: shuffledOrder)
        if let current, queue.entry(id: current) == nil {
            moveCursor(to: queue.firstInPlayOrder?.id, &step)
        }
        step.upcomingChanged = true
        step.changed(.queue)
    }
}
