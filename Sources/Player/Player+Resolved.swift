import Decoders
import Engine
import FermataCore

/// Reads a front end resolves against the queue as it is: run on the actor, in the same turn as the edit or read
/// that follows, so no other client's edit can come between the look and the change.
public typealias QueueResolver<Value> = @Sendable (QueueView) throws -> Value

/// A move of a run of queue positions: `range` goes to start at `destination` (positions after the move).
public struct QueueMove: Sendable, Equatable {
    public var range: Range<Int>
    public var destination: Int

    public init(range: Range<Int>, destination: Int) {
        self.range = range
        self.destination = destination
    }
}

/// The player's status and its queue, read in one actor turn (MPD's `status` needs both to agree).
public struct PlayerView: Sendable {
    public var status: PlayerStatus
    public var queue: QueueView
}

/// Protocol commands that read or edit the queue, each in one actor turn (positions and ids resolved inside).
extension Player {
    /// The status and the queue in one turn, with the rate of an entry skipped to but not heard yet read first (off
    /// the actor): times and the loop are then in that entry's seconds, never in frames over an unknown rate. At most
    /// one step: the start's own rate read (awaited, not repeated), or else the idle entry's rate.
    public func view() async -> PlayerView {
        if requestedRateUnknown {
            await resolveRequestedRate()
        } else {
            await resolveIdleRate()
        }
        return PlayerView(status: status(), queue: queueView())
    }

    /// The current entry's rate from its file's header when neither the engine nor a start asked for knows it (paused
    /// or stopped before a sample of it was decoded), so the status shows its loop in seconds. The step keeps it only
    /// if the entry is still current.
    func resolveIdleRate() async {
        guard status().sourceSampleRate == 0, let id = state.current, let entry = state.queue.entry(id: id),
              !PlayableItem.isLive(entry.uri), let rate = await sampleRate(ofURI: entry.uri) else { return }
        await stepLogged(.idleRateResolved(id, rate: rate))
    }

    /// Inserts at the position `resolve` names (nil: the end), looked up in the same turn; throws `queueFull` (and
    /// adds nothing) past `maxQueueLength`.
    @discardableResult
    public func insert(uris: [String], replayGain gains: [ReplayGainInfo], spans: [PlaySpan?] = [],
                       resolvingPosition resolve: QueueResolver<Int?>) async throws -> [EntryID] {
        try await insert(uris: uris, replayGain: gains, spans: spans, at: try resolve(queueView()))
    }

    /// Removes the entries `resolve` names.
    public func remove(resolving resolve: QueueResolver<Set<EntryID>>) async throws {
        try await remove(ids: try resolve(queueView()))
    }

    /// Moves what `resolve` names (nil: nothing to move).
    public func move(resolving resolve: QueueResolver<QueueMove?>) async throws {
        guard let move = try resolve(queueView()) else { return }
        try await self.move(move.range, to: move.destination)
    }

    /// Exchanges the two entries at the positions `resolve` names.
    public func swap(resolving resolve: QueueResolver<(Int, Int)>) async throws {
        let (first, second) = try resolve(queueView())
        try await swapAt(first, second)
    }

    /// Reorders the range `resolve` names (nil: the whole queue).
    public func shuffle(resolving resolve: QueueResolver<Range<Int>?>) async throws {
        await shuffle(try resolve(queueView()))
    }
}
