import AudioCore
import Decoders
import Engine
import FermataCore

/// Queue editing and restoring (MPD `add`, `delete`, `move`, `clear`, `shuffle`, `random`, `consume`, `prio`): each
/// one step, written through `PlayerPersistence` before the method returns.
extension Player {
    /// The longest queue a client can build. MPD refuses past its `max_playlist_length` (16,384 by default);
    /// without a bound one client's `add /` in a loop reached 1.2 million entries and 330 MB in 18 s, the end of a
    /// 512 MB board. 100,000 entries take about 27 MB.
    public static let maxQueueLength = 100_000

    /// Appends files (CLI use); reads their ReplayGain tags outside the actor (`BlockingWork`), so no file is read
    /// while the actor is held; returns the new entry ids.
    @discardableResult
    public nonisolated func add(paths: [String]) async throws -> [EntryID] {
        let files = paths.map { path(for: $0) }
        let gains = await BlockingWork.run { files.map { (try? TagReader.read(path: $0))?.replayGain ?? ReplayGainInfo() } }
        return try await insert(uris: paths, replayGain: gains, at: nil)
    }

    /// Inserts files by URI (relative to the music directory, or absolute) at `position` (default: the end), with
    /// the ReplayGain the caller found for each (the library has it; tags of other files are read by the caller,
    /// never here: the actor does no file I/O). Throws `queueFull` (and adds nothing) past `maxQueueLength`.
    @discardableResult
    public func insert(uris: [String], replayGain gains: [ReplayGainInfo], spans: [PlaySpan?] = [], at position: Int?)
        async throws -> [EntryID] {
        try await step(.insert(uris: uris, replayGain: gains, spans: spans, at: position)).added
    }

    /// Sets the part of its file an entry plays, its passes and tempo (MPD `rangeid`; nil: all of it). Refused for
    /// the entry playing.
    public func setSpan(_ span: PlaySpan?, of entry: EntryID) async throws { try await step(.setSpan(entry, span)) }

    public func remove(ids: Set<EntryID>) async throws { try await step(.remove(ids)) }

    public func move(_ range: Range<Int>, to destination: Int) async throws { try await step(.move(range, to: destination)) }

    /// Exchanges the entries at two positions (MPD `swap`); the playing entry plays on wherever it now stands.
    public func swapAt(_ first: Int, _ second: Int) async throws { try await step(.swap(first, second)) }

    /// Empties the queue and stops, in one step and one write: no `play` from another client can land between the
    /// stop and the emptying.
    public func clear() async { await stepLogged(.clear) }

    /// Permanently reorders `range` of the queue (MPD `shuffle`).
    public func shuffle(_ range: Range<Int>?) async { await stepLogged(.shuffle(range)) }

    /// Plays in a shuffled order (kept across restarts) or back in list order (MPD `random`).
    public func setShuffled(_ on: Bool) async { await stepLogged(.setShuffled(on)) }

    /// MPD's `single oneshot`.
    public func setSingleOneshot() async { await stepLogged(.singleOneshot) }

    /// Consume on or off; `oneshot`: on until one entry has been consumed (MPD 0.24's `consume oneshot`).
    public func setConsume(_ on: Bool, oneshot: Bool = false) async {
        await stepLogged(.consume(on ? (oneshot ? .oneshot : .on) : .off))
    }

    /// Sets MPD's priority of the entries at the positions `resolve` names (`prio`, `prioid`).
    public func setPriority(_ priority: UInt8, resolving resolve: QueueResolver<[Range<Int>]>) async throws {
        try await step(.priority(priority, try resolve(queueView())))
    }

    // MARK: restore

    /// Puts back the saved modes and the current entry, and starts audio at the saved position when the policy and the
    /// saved transport say so. Call before `restoreQueue` when the queue is large: only the current and next entries
    /// are needed to start. A saved file that has gone fails to open and the player moves on to the next entry.
    public func restore(snapshot saved: PlayerSnapshot, entries: [QueueEntry], policy: ResumePolicy) async {
        // A loop on the current entry is reported in seconds of its source: a stopped player saved no rate, so the
        // file's header says it (read off the actor, before the step).
        var rate: Int?
        if saved.sampleRate == 0, let loop = saved.loop, loop.entry == saved.currentEntry,
           let entry = entries.first(where: { $0.id == loop.entry }) {
            rate = await sampleRate(ofURI: entry.uri)
        }
        await stepLogged(.restore(saved, entries: entries, policy: policy, idleRate: rate))
    }

    /// Starts the saved entry at its saved position as `restore` would have, when nothing has happened since.
    public func resumeSaved(_ saved: PlayerSnapshot, policy: ResumePolicy) async {
        await stepLogged(.resumeSaved(saved, policy: policy))
    }

    /// Replaces the queue with the whole saved list (after `restore` started audio from the first few entries).
    public func restoreQueue(entries: [QueueEntry], version: Int, nextID: EntryID, shuffledOrder: [EntryID]?) async {
        await stepLogged(.restoreQueue(entries: entries, version: version, nextID: nextID, shuffledOrder: shuffledOrder))
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
    /// What the network streams in the queue said of themselves.
    public var streams: [EntryID: StreamTags] = [:]
}
