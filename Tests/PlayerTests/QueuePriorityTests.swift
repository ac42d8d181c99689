import FermataCore
import Player
import Testing

/// MPD's priorities and random order on the queue value alone (no actor, no engine): what `prio`, `random`, `add`
/// and `play N` do to the order songs play in, as MPD 0.23's `Queue.cxx` and `PlaylistControl.cxx` do it.
@Suite struct QueuePriorityTests {
    /// A seeded generator, so each order is one fixed permutation.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    func queue(_ count: Int, shuffled: Bool, seed: UInt64 = 1) -> (PlayQueue, Seeded) {
        var queue = PlayQueue()
        var random = Seeded(state: seed)
        queue.insert(uris: (0..<count).map { "song\($0).flac" }, using: &random)
        if shuffled { queue.setShuffled(true, first: nil, using: &random) }
        return (queue, random)
    }

    func priorities(_ queue: PlayQueue) -> [UInt8] {
        queue.playOrder.map { id in queue.entry(id: id)!.priority }
    }

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func randomPlaysHigherPrioritiesFirstEachGroupShuffled(seed: UInt64) {
        var (queue, random) = queue(12, shuffled: false, seed: seed)
        queue.setPriority(9, positions: 2..<4, current: nil, using: &random)
        queue.setPriority(5, positions: 7..<10, current: nil, using: &random)
        queue.setShuffled(true, first: nil, using: &random)
        #expect(priorities(queue) == [9, 9, 5, 5, 5, 0, 0, 0, 0, 0, 0, 0])
        #expect(Set(queue.playOrder) == Set(queue.entries.map(\.id)))
        #expect(queue.entries.map(\.uri) == (0..<12).map { "song\($0).flac" }, "list order untouched")
    }

    @Test func switchingRandomOnKeepsThePlayingEntryFirst() {
        var (queue, random) = queue(10, shuffled: false)
        queue.setPriority(7, positions: 0..<3, current: nil, using: &random)
        let playing = queue.entries[8].id
        queue.setShuffled(true, first: playing, using: &random)
        #expect(queue.playOrder.first == playing)
        #expect(priorities(queue).dropFirst().prefix(3) == [7, 7, 7], "the rest by priority after it")
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func aRaisedPriorityPlaysNextAfterTheCurrentEntry(seed: UInt64) {
        var (queue, random) = queue(10, shuffled: true, seed: seed)
        let current = queue.playOrder[3]
        let target = queue.playOrder[8]
        queue.setPriority(20, positions: queue.index(of: target)!..<(queue.index(of: target)! + 1),
                          current: current, using: &random)
        let order = queue.playOrder
        #expect(order[3] == current, "the current entry stays where it is")
        #expect(order[4] == target, "the only entry of priority 20 comes right after it")
        #expect(queue.entry(after: current, wrap: false)?.id == target)
    }

    @Test func anEntryAlreadyPlayedComesBackOnlyAbovePriorityOfTheCurrent() {
        var (queue, random) = queue(10, shuffled: true, seed: 3)
        let current = queue.playOrder[5]
        let played = queue.playOrder[1]
        let position = queue.index(of: played)!
        // The current entry has priority 4; the played one rises to 3: not above it, so it stays played.
        queue.setPriority(4, positions: queue.index(of: current)!..<(queue.index(of: current)! + 1), current: current,
                          using: &random)
        queue.setPriority(3, positions: position..<(position + 1), current: current, using: &random)
        #expect(queue.playOrder.firstIndex(of: played)! < queue.playOrder.firstIndex(of: current)!)
        // Rising to 5 (above the current's 4), it is played again right after the current entry.
        queue.setPriority(5, positions: position..<(position + 1), current: current, using: &random)
        #expect(queue.entry(after: current, wrap: false)?.id == played)
    }

    @Test func settingThePriorityItAlreadyHasChangesNothing() {
        var (queue, random) = queue(5, shuffled: true)
        let before = queue
        let changed1 = queue.setPriority(0, positions: 0..<5, current: nil, using: &random)
        #expect(!changed1)
        #expect(queue == before, "no new version, no new order")
        let changed2 = queue.setPriority(1, positions: 1..<2, current: nil, using: &random)
        #expect(changed2)
        #expect(queue.version == before.version + 1)
        #expect(queue.changes(since: before.version).map(\.position) == [1], "plchanges names the entry changed")
    }

    @Test func startingAnEntryResetsItsPriority() {
        var (queue, random) = queue(4, shuffled: false)
        queue.setPriority(9, positions: 2..<3, current: nil, using: &random)
        let id = queue.entries[2].id
        let version = queue.version
        let changed3 = queue.startedPlaying(id)
        #expect(changed3)
        #expect(queue.entry(id: id)?.priority == 0 && queue.version == version + 1)
        let again = queue.startedPlaying(id)
        #expect(!again, "already 0: nothing changes")
        #expect(!queue.hasPriorities)
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func anAddedEntryGoesAmongThoseStillToPlay(seed: UInt64) {
        var (queue, random) = queue(8, shuffled: true, seed: seed)
        let current = queue.playOrder[5]
        let before = Array(queue.playOrder.prefix(6))
        let added = queue.insert(uris: ["new.flac"], playingAfter: current, using: &random)[0]
        let order = queue.playOrder
        #expect(Array(order.prefix(6)) == before, "nothing already played or playing moves")
        #expect(order.firstIndex(of: added)! > 5)
    }

    @Test func anAddedEntryWaitsBehindHigherPriorities() {
        var (queue, random) = queue(6, shuffled: false)
        queue.setPriority(8, positions: 0..<3, current: nil, using: &random)
        queue.setShuffled(true, first: nil, using: &random)
        for _ in 0..<20 {
            let added = queue.insert(uris: ["x.flac"], playingAfter: nil, using: &random)[0]
            #expect(queue.playOrder.firstIndex(of: added)! >= 3, "priority 0 never before priority 8")
        }
    }

    @Test func playNMovesTheChosenEntryToWhereItPlaysNow() {
        let (queue, _) = queue(8, shuffled: true, seed: 9)
        let order = queue.playOrder
        // Playing order[2]: order[6] moves right after it, the rest keeps its order.
        var playing = queue
        let changed4 = playing.moveToPlayNow(order[6], current: order[2], playing: true)
        #expect(changed4)
        #expect(playing.playOrder == [order[0], order[1], order[2], order[6], order[3], order[4], order[5], order[7]])
        // Stopped on order[4]: order[1] moves just before it (it plays from there, and what came after still comes).
        var stopped = queue
        let changed5 = stopped.moveToPlayNow(order[1], current: order[4], playing: false)
        #expect(changed5)
        #expect(stopped.playOrder == [order[0], order[2], order[3], order[1], order[4], order[5], order[6], order[7]])
        // Nothing current: to the front.
        var fresh = queue
        let changed6 = fresh.moveToPlayNow(order[5], current: nil, playing: false)
        #expect(changed6)
        #expect(fresh.playOrder.first == order[5])
        // In list order nothing moves.
        var (straight, _) = self.queue(4, shuffled: false)
        let changed7 = straight.moveToPlayNow(straight.entries[3].id, current: straight.entries[0].id, playing: true)
        #expect(!changed7)
    }
}
