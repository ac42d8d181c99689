import AudioCore
import Decoders
import Engine
import FermataCore
import Player
import TestSupport
import Testing

/// The queue has a bound: one client's `add /` in a loop took a daemon to 1.2 million entries and 330 MB in 18 s.
/// An insert past `Player.maxQueueLength` adds nothing and says why; the queue up to the bound stays.
@Suite struct QueueLimitTests {
    @Test func anInsertPastTheBoundAddsNothing() async throws {
        let (player, engine) = playerOverMemory()
        defer { engine.shutdown() }
        let limit = Player.maxQueueLength
        func uris(_ count: Int) -> [String] { (0..<count).map { "a/\($0).flac" } }
        func add(_ count: Int) async throws {
            try await player.insert(uris: uris(count), replayGain: Array(repeating: ReplayGainInfo(), count: count),
                                    resolvingPosition: { _ in nil })
        }
        try await add(limit - 10)
        await #expect(throws: Player.ActionError.queueFull) { try await add(11) }
        #expect(await player.queueView().queue.count == limit - 10, "the refused insert added nothing")
        try await add(10)
        #expect(await player.queueView().queue.count == limit)
        await #expect(throws: Player.ActionError.queueFull) { try await add(1) }
    }
}
