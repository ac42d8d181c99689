import FermataCore
import Player
import TestSupport
import Testing

/// A command is one turn and one save: each transport command writes the state durably once (not twice: SD-card
/// wear) and before it returns (a `play` that resumes a pause was never written); and a queue edit decides and
/// applies everything before its first `await`, so another client's command cannot land in between. On a real
/// `Player` and engine over the paced null output, with a persistence that records (and can hold) each write.
@Suite struct CommandSaveTests {
    /// Records every write; while `holding`, each write waits until `release()` (a slow SD card, made to order).
    actor RecordingPersistence: PlayerPersistence {
        private(set) var snapshots: [PlayerSnapshot] = []
        private(set) var queues: [PlayQueue] = []
        private var holding = false
        private var held: [CheckedContinuation<Void, Never>] = []

        var waiting: Int { held.count }
        func hold() { holding = true }
        func release() {
            holding = false
            for waiter in held { waiter.resume() }
            held = []
        }

        func save(_ snapshot: PlayerSnapshot, queue: PlayQueue?, writeNumber: Int) async {
            if let queue { queues.append(queue) }
            snapshots.append(snapshot)
            if holding { await withCheckedContinuation { held.append($0) } }
        }

        func checkpoint(entry: EntryID, frame: Int64, sampleRate: Int, writeNumber: Int) async {}
    }

    actor Finished {
        private(set) var value = false
        func set() { value = true }
    }

    /// Three 20-second tracks over the paced null output, saved through a `RecordingPersistence`.
    struct Rig {
        let transport: TransportTests.Rig
        let store: RecordingPersistence
        var player: Player { transport.player }
        var ids: [EntryID] { transport.ids }

        init() async throws {
            let store = RecordingPersistence()
            self.store = store
            transport = try await TransportTests.Rig(seconds: [20, 20, 20], persistence: store)
        }

        func finish() async { await transport.finish() }

        /// Waits until `condition` holds (at most `Patience.stall`: only a hang detector, since the actors it asks
        /// answer in microseconds on a quiet machine but can wait tens of seconds for a loaded one's thread pool).
        func until(_ condition: () async -> Bool) async throws {
            let deadline = ContinuousClock.now + Patience.stall
            while !(await condition()), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        }
    }

    @Test func eachCommandWritesTheStateOnceBeforeItReturns() async throws {
        let rig = try await Rig()
        let player = rig.player
        try await player.perform(.setRepeat(.track))
        let steps: [(ControlAction, PlayerSnapshot.Transport)] = [
            (.playEntry(rig.ids[0]), .playing), (.pause, .paused), (.play, .playing), (.next, .playing),
            (.seek(seconds: 5), .playing), (.previous, .playing), (.togglePause, .paused), (.playPause, .playing),
            (.setVolume(40), .playing), (.stop, .stopped), (.play, .playing), (.stop, .stopped),
        ]
        for (action, transport) in steps {
            // The entry a command started becomes audible in the meantime: that is not a write of its own.
            try await Task.sleep(for: .milliseconds(150))
            let before = await rig.store.snapshots.count
            try await player.perform(action)
            let written = await rig.store.snapshots
            #expect(written.count - before == 1, "\(action) wrote \(written.count - before) times")
            #expect(written.last?.transport == transport, "\(action) saved \(String(describing: written.last?.transport))")
        }
        await rig.finish()
    }

    @Test func aRemoveStartsItsNextEntryBeforeAnotherCommandCanLand() async throws {
        let rig = try await Rig()
        let player = rig.player
        try await player.perform(.playEntry(rig.ids[0]))
        await rig.store.hold()
        // Removing the entry playing starts the next one; its write is slow.
        let remove = Task { try await player.remove(ids: [rig.ids[0]]) }
        try await rig.until { await rig.store.waiting >= 1 }
        // Meanwhile another client plays the third entry.
        let play = Task { try await player.perform(.playEntry(rig.ids[2])) }
        try await rig.until { await rig.store.waiting >= 2 }
        await rig.store.release()
        try await remove.value
        try await play.value
        let status = await player.status()
        #expect(status.entryID == rig.ids[2], "the later command wins: \(String(describing: status.entryID))")
        #expect(await player.queue.entries.map(\.id) == [rig.ids[1], rig.ids[2]])
        await rig.finish()
    }

    @Test func aClearCannotBeOvertakenByAPlay() async throws {
        let rig = try await Rig()
        let player = rig.player
        try await player.perform(.playEntry(rig.ids[0]))
        await rig.store.hold()
        let clear = Task { await player.clear() }
        try await rig.until { await rig.store.waiting >= 1 }
        // Another client's play while the clear's write is on its way: the queue is already empty.
        let finished = Finished()
        let play = Task { () -> Bool in
            let played = (try? await player.perform(.playEntry(rig.ids[1]))) != nil
            await finished.set()
            return played
        }
        // It is refused at once, or (the old order: stop, write, then empty) it waits behind the clear's write.
        try await rig.until {
            let (waiting, done) = (await rig.store.waiting, await finished.value)
            return waiting >= 2 || done
        }
        await rig.store.release()
        await clear.value
        let refused = await !play.value
        let status = await player.status()
        #expect(refused, "the entry is gone: the play is refused")
        #expect(status.state == .stopped && status.entryID == nil, "\(status.state), \(String(describing: status.entryID))")
        #expect(await player.queue.isEmpty)
        await rig.finish()
    }

    /// MPD's `next` and `previous` while paused play the entry skipped to in one step and one save (issue 35: the
    /// handler asked the status, skipped, asked again and resumed — four actor hops and two writes).
    @Test func aSkipThatPlaysIsOneWrite() async throws {
        let rig = try await Rig()
        let player = rig.player
        try await player.perform(.playEntry(rig.ids[0]))
        try await player.perform(.pause)
        for (forward, expected) in [(true, rig.ids[1]), (false, rig.ids[0])] {
            try await Task.sleep(for: .milliseconds(150))
            let before = await rig.store.snapshots.count
            try await player.perform(.skipPlaying(forward: forward))
            let written = await rig.store.snapshots
            #expect(written.count - before == 1, "a skip wrote \(written.count - before) times")
            #expect(written.last?.transport == .playing && written.last?.currentEntry == expected)
            try await player.perform(.pause)
        }
        try await player.perform(.stop)
        await #expect(throws: Player.ActionError.notPlaying) { try await player.perform(.skipPlaying(forward: true)) }
        await rig.finish()
    }

    /// An action that changes nothing writes nothing: a pause while paused, a play while playing, the first tap of a
    /// tap tempo (no tempo yet), a volume set to what it is (issue 35: each wrote the state).
    @Test func anActionThatChangesNothingWritesNothing() async throws {
        let rig = try await Rig()
        let player = rig.player
        try await player.perform(.playEntry(rig.ids[0]))
        try await player.perform(.setVolume(50))
        try await player.perform(.pause)
        try await Task.sleep(for: .milliseconds(150))
        let before = await rig.store.snapshots.count
        for action: ControlAction in [.pause, .setVolume(50), .tapTempo(atNanoseconds: 1_000_000_000)] {
            try await player.perform(action)
        }
        #expect(await rig.store.snapshots.count == before, "no-op actions wrote")
        try await player.perform(.resume)
        #expect(await rig.store.snapshots.count == before + 1, "the resume is written")
        let playing = await rig.store.snapshots.count
        try await player.perform(.play)
        #expect(await rig.store.snapshots.count == playing, "a play while playing wrote")
        await rig.finish()
    }
}
