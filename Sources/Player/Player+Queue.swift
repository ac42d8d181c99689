import AudioCore
import Decoders
import Engine
import FermataCore

/// Queue editing and restoring (MPD `add`, `delete`, `move`, `clear`, `shuffle`, `random`, `consume`).
/// Each edit is written through `PlayerPersistence` before the method returns.
extension Player {
    /// Appends files (CLI use); reads their ReplayGain tags outside the actor (`BlockingWork`), so no file is read
    /// while the actor is held; returns the new entry ids.
    @discardableResult
    public nonisolated func add(paths: [String]) async -> [EntryID] {
        let files = paths.map { path(for: $0) }
        let gains = await BlockingWork.run { files.map { (try? TagReader.read(path: $0))?.replayGain ?? ReplayGainInfo() } }
        return await insert(uris: paths, replayGain: gains, at: nil)
    }

    /// Inserts files by URI (relative to the music directory, or absolute) at `position` (default: the end), with
    /// the ReplayGain the caller found for each (the library has it; tags of other files are read by the caller,
    /// never here: the actor does no file I/O).
    @discardableResult
    public func insert(uris: [String], replayGain gains: [ReplayGainInfo], at position: Int?) async -> [EntryID] {
        precondition(gains.count == uris.count, "one ReplayGain value per URI")
        let at = min(max(0, position ?? queue.count), queue.count)
        // In random order new entries go among those still to play (after the one queued next, as MPD).
        let playingAfter = transport.isStopped ? current : (upcomingEntry()?.id ?? current)
        let ids = editQueue { $0.insert(uris: uris, replayGain: gains, at: at, playingAfter: playingAfter, using: &$1) }
        // The new entries are the slice at `at` (looking each id up would cost the queue's length per entry:
        // quadratic for `add /` or a list of 10,000 adds).
        let added = Array(queue.entries[at..<(at + ids.count)])
        await queueEdited(.inserted(added, at: at))
        if queue.shuffledOrder != nil { await queueEdited(.shuffleOrder(queue.shuffledOrder)) }
        return ids
    }

    public func remove(ids: Set<EntryID>) async throws {
        guard ids.allSatisfy({ queue.entry(id: $0) != nil }) else {
            throw ActionError.noSuchEntry(ids.first { queue.entry(id: $0) == nil } ?? -1)
        }
        guard !ids.isEmpty else { return }
        // Decided and applied in this turn, before any `await`: another client's command cannot land between the
        // edit and the start of the entry that follows (it would have started an entry no longer queued).
        let removingCurrent = current.map(ids.contains) ?? false
        let next = removingCurrent ? entryAfterRemoving(ids) : nil
        editQueue { queue, _ in queue.remove(ids: ids) }
        guard removingCurrent else { return await queueEdited(.removed(ids)) }
        // As MPD's DeletePosition: playing goes on with the entry after those removed; paused or stopped stops there.
        if let next, transport.isPlaying {
            await begin(next, queueEdit: .removed(ids))
        } else if transport.isStopped {
            moveCursor(to: next?.id)
            await queueEdited(.removed(ids))
        } else {
            await stop(clearingCursor: true, cursorAt: next?.id, queueEdit: .removed(ids))
        }
    }

    /// The first entry after the current one in play order that is not being removed (none under track repeat:
    /// MPD's repeat with single ends there).
    private func entryAfterRemoving(_ ids: Set<EntryID>) -> QueueEntry? {
        guard var at = current, modes.repeatMode != .track else { return nil }
        for _ in 0..<queue.count {
            guard let next = queue.entry(after: at, wrap: modes.repeatMode != .off), next.id != current else { return nil }
            if !ids.contains(next.id) { return next }
            at = next.id
        }
        return nil
    }

    public func move(_ range: Range<Int>, to destination: Int) async throws {
        guard range.lowerBound >= 0, range.upperBound <= queue.count, destination >= 0,
              destination + range.count <= queue.count else { throw ActionError.invalidValue("bad song index") }
        editQueue { queue, _ in queue.move(range, to: destination) }
        await queueEdited(.reordered)
    }

    /// Exchanges the entries at two positions (MPD `swap`); the playing entry plays on wherever it now stands.
    public func swapAt(_ first: Int, _ second: Int) async throws {
        guard (0..<queue.count).contains(first), (0..<queue.count).contains(second) else {
            throw ActionError.invalidValue("bad song index")
        }
        editQueue { queue, _ in queue.swapAt(first, second) }
        await queueEdited(.reordered)
    }

    /// Empties the queue and stops, in one turn and one write: no `play` from another client can land between the
    /// stop and the emptying.
    public func clear() async {
        editQueue { queue, _ in queue.clear() }
        if transport.isStopped {
            moveCursor(to: nil)
            await queueEdited(.cleared)
        } else {
            await stop(clearingCursor: true, queueEdit: .cleared)
        }
    }

    /// Permanently reorders `range` of the queue (MPD `shuffle`): the entry playing, when in it, goes to its start
    /// and the rest is shuffled; a stopped player forgets where it stood (MPD's Shuffle).
    public func shuffle(_ range: Range<Int>?) async {
        let playing = transport.isStopped ? nil : current
        if transport.isStopped { moveCursor(to: nil) }
        editQueue { $0.shuffle(range, keepingFirst: playing, using: &$1) }
        await queueEdited(.reordered)
    }

    /// Plays in a shuffled order (kept across restarts) or back in list order (MPD `random`). As MPD's `SetRandom`:
    /// the entry playing stays first in the new order; a stopped player forgets where it stood (`play` then starts
    /// the new order from its beginning).
    public func setShuffled(_ on: Bool) async {
        guard on != queue.isShuffled else { return }
        let first = transport.isStopped ? nil : current
        if on, transport.isStopped { moveCursor(to: nil) }
        editQueue { $0.setShuffled(on, first: first, using: &$1) }
        await queueEdited(.shuffleOrder(queue.shuffledOrder))
        changeSink.yield(.options)
    }

    /// MPD's `single oneshot`: stop after the current entry once, then single is off again. Under repeat (MPD's
    /// repeat with single: the entry repeats) it stays until repeat is switched off and it has stopped once.
    public func setSingleOneshot() async {
        updateModes {
            if $0.repeatMode == .queue { $0.repeatMode = .track }
            $0.single = true
            $0.singleOneshot = true
        }
        await save()
        changeSink.yield(.options)
    }

    /// Consume on or off; `oneshot`: on until one entry has been consumed (MPD 0.24's `consume oneshot`).
    public func setConsume(_ on: Bool, oneshot: Bool = false) async {
        updateModes { $0.consume = on ? (oneshot ? .oneshot : .on) : .off }
        await save()
        changeSink.yield(.options)
    }

    /// Sets MPD's priority of the entries at the positions `resolve` names (`prio`, `prioid`); in random order they
    /// move as MPD moves them. Priority above 0 changes nothing in list order.
    public func setPriority(_ priority: UInt8, resolving resolve: QueueResolver<[Range<Int>]>) async throws {
        let ranges = try resolve(queueView())
        var changed = false
        for range in ranges {
            let current = current
            changed = editQueue { $0.setPriority(priority, positions: range, current: current, using: &$1) } || changed
        }
        guard changed else { return }
        await queueEdited(.reordered)
    }

    func queueEdited(_ edit: PersistedQueueEdit) async {
        await save(edit)
        refreshUpcoming()
        changeSink.yield(.queue)
    }

    // MARK: restore

    /// Puts back the saved modes and the current entry, and starts audio at the saved position when the policy and the
    /// saved transport say so. Call before `restoreQueue` when the queue is large: only the current and next entries
    /// are needed to start. A saved file that has gone fails to open and the player moves on to the next entry.
    public func restore(snapshot saved: PlayerSnapshot, entries: [QueueEntry], policy: ResumePolicy) async {
        updateModes {
            $0.repeatMode = saved.repeatMode
            $0.single = saved.single
            $0.consume = saved.consume ? .on : .off
            $0.replayGain = saved.replayGain
            $0.volume = saved.volume
        }
        // A value a hand-edited row holds outside 50–150 % is stepped into range, as a tempo command would be.
        let tempo = PlayerModes.steppedTempo(min(150, max(50, saved.tempoPercent)))
        if tempo != modes.tempoPercent { setTempo(tempo) }
        editQueue { queue, _ in
            queue = PlayQueue(entries: entries, nextID: saved.nextEntryID, version: saved.queueVersion,
                              shuffledOrder: nil)
        }
        setLoopMarks(saved.loop.map(LoopMarks.set) ?? .none)
        moveCursor(to: saved.currentEntry)
        // A loop on the current entry is reported in seconds of its source: a stopped player saved no rate, so the
        // file's header says it (read off the actor, only then).
        idleRate = nil
        if let loop = saved.loop, loop.entry == saved.currentEntry, let entry = queue.entry(id: loop.entry) {
            let file = path(for: entry.uri)
            let rate = saved.sampleRate > 0 ? saved.sampleRate
                : await BlockingWork.run { (try? DecoderRegistry.open(path: file))?.format.sampleRate }
            idleRate = rate.map { (loop.entry, $0) }
        }
        guard let entry = saved.currentEntry.flatMap(queue.entry(id:)),
              saved.transport != .stopped, policy != .off else { return }
        await begin(entry, atFrame: saved.positionFrames, rate: saved.sampleRate > 0 ? saved.sampleRate : nil,
                    paused: saved.transport == .paused || policy == .paused, songStarted: false)
    }

    /// Starts the saved entry at its saved position as `restore` would have, when nothing has happened since: the
    /// player is still stopped on that entry (the restore could not play then because the music directory was not
    /// there yet). Does nothing once someone has played, stopped or edited their way elsewhere.
    public func resumeSaved(_ saved: PlayerSnapshot, policy: ResumePolicy) async {
        guard transport.isStopped, saved.transport != .stopped, policy != .off, let id = saved.currentEntry,
              current == id, let entry = queue.entry(id: id) else { return }
        await begin(entry, atFrame: saved.positionFrames, rate: saved.sampleRate > 0 ? saved.sampleRate : nil,
                    paused: saved.transport == .paused || policy == .paused, songStarted: false)
    }

    /// Replaces the queue with the whole saved list (after `restore` started audio from the first few entries).
    public func restoreQueue(entries: [QueueEntry], version: Int, nextID: EntryID, shuffledOrder: [EntryID]?) {
        editQueue { queue, _ in
            queue = PlayQueue(entries: entries, nextID: nextID, version: version, shuffledOrder: shuffledOrder)
        }
        if let current, queue.entry(id: current) == nil {
            moveCursor(to: queue.firstInPlayOrder?.id)
        }
        refreshUpcoming()
        changeSink.yield(.queue)
    }
}

/// A consistent copy of what the control protocol shows about the queue.
public struct QueueView: Sendable {
    public var queue: PlayQueue
    public var current: EntryID?
    public var upcoming: EntryID?
    public var consume: Bool
    /// Consume switches itself off after one entry (MPD's `consume: oneshot`).
    public var consumeOneshot = false
}

extension Player {
    /// The entry MPD's status names as next (its GetNextPosition): under `single` the entry after the current one,
    /// where playback pauses (MPD's border pause), not none.
    func nextForStatus() -> QueueEntry? {
        guard let current else { return nil }
        if modes.single && modes.repeatMode != .track {
            return queue.entry(after: current, wrap: modes.repeatMode == .queue)
        }
        return upcomingEntry()
    }

    /// The queue, the current and the next entry, read in one actor turn.
    public func queueView() -> QueueView {
        QueueView(queue: queue, current: current, upcoming: nextForStatus()?.id, consume: modes.consume != .off,
                  consumeOneshot: modes.consume == .oneshot)
    }

}
