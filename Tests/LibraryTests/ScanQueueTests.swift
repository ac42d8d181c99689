import AudioCore
import Dispatch
import Synchronization
import Testing
import TestSupport
@testable import Library

/// The scan's hand-overs between threads (`BlockingQueue`, `WalkQueue`, both on `WaitableMutex`) under contention:
/// nothing lost, nothing twice, and no thread left asleep. A lost wake-up shows as a run that stops making progress
/// (`waitWhileProgressing`: nothing crosses for `Patience.stallSeconds`): the test then closes the queue (which must
/// wake everyone) and fails, instead of hanging. How long a run takes is the machine's load (eight threads handing
/// over one item at a time on two cores), so no clock bounds it; the time limit is only a hang detector above that.
@Suite(.timeLimit(.minutes(15))) struct ScanQueueTests {
    /// Starts `count` threads running `body`; `done` is left by each as it ends.
    static func run(_ count: Int, name: String, _ body: @escaping @Sendable (Int) -> Void)
        -> (threads: [WorkerThread], done: DispatchGroup) {
        let done = DispatchGroup()
        let threads = (0..<count).map { index in
            done.enter()
            return WorkerThread.started(name: "\(name)-\(index)") {
                body(index)
                done.leave()
            }
        }
        return (threads, done)
    }

    @Test func everyItemCrossesATinyQueueOnceWithFourThreadsOnEachSide() async throws {
        let queue = BlockingQueue<Int>(capacity: 1)
        let perProducer = 20_000
        let received = Mutex<[Int]>([])
        let producersLeft = Atomic<Int>(4)
        let crossed = Atomic<Int>(0)  // items taken so far: the run's progress
        let producers = Self.run(4, name: "producer") { index in
            for item in (index * perProducer)..<((index + 1) * perProducer) { queue.push(item) }
            if producersLeft.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { queue.close() }
        }
        let consumers = Self.run(4, name: "consumer") { _ in
            var mine: [Int] = []
            while let item = queue.pop() {
                mine.append(item)
                crossed.add(1, ordering: .relaxed)
            }
            received.withLock { $0 += mine }
        }
        let finished = try await onThread {
            waitWhileProgressing(progress: { crossed.load(ordering: .relaxed) }) {
                producers.done.wait(timeout: .now()) == .success && consumers.done.wait(timeout: .now()) == .success
            }
        }
        if !finished { queue.close() } // wakes the sleepers, so the joins below return
        (producers.threads + consumers.threads).forEach { $0.join() }
        #expect(finished, "a thread stayed asleep")
        #expect(received.withLock { $0.sorted() } == Array(0..<(4 * perProducer)))
    }

    @Test func closingWakesProducersWaitingForRoomAndConsumersWaitingForItems() async throws {
        let full = BlockingQueue<Int>(capacity: 1)
        full.push(0)
        let empty = BlockingQueue<Int>(capacity: 1)
        let pushed = Mutex<[Bool]>([])
        let popped = Mutex<[Int?]>([])
        let blockedProducers = Self.run(3, name: "blocked-producer") { index in
            let accepted = full.push(index + 1)
            pushed.withLock { $0.append(accepted) }
        }
        let blockedConsumers = Self.run(3, name: "blocked-consumer") { _ in
            let item = empty.pop()
            popped.withLock { $0.append(item) }
        }
        // They are parked (nothing can have returned: no room, no item) until the queues close.
        #expect(pushed.withLock { $0.isEmpty } && popped.withLock { $0.isEmpty })
        full.close()
        empty.close()
        let finished = try await onThread {
            waitWhileProgressing(progress: { pushed.withLock { $0.count } + popped.withLock { $0.count } }) {
                blockedProducers.done.wait(timeout: .now()) == .success
                    && blockedConsumers.done.wait(timeout: .now()) == .success
            }
        }
        try #require(finished, "close left a thread asleep") // (not joined: it would never return)
        (blockedProducers.threads + blockedConsumers.threads).forEach { $0.join() }
        #expect(pushed.withLock { $0 } == [false, false, false])
        #expect(popped.withLock { $0 }.allSatisfy { $0 == nil } && popped.withLock { $0.count } == 3)
        #expect(full.pop() == 0, "what was queued before the close is still drained")
        #expect(full.pop() == nil)
    }

    @Test func walkersShareATreeAndAllStopWhenTheLastDirectoryIsListed() async throws {
        // A tree of 4 levels, 6 children each (1 + 6 + 36 + 216 + 1296 directories), listed by 4 threads.
        let root = PendingDirectory(path: [], ancestors: [], depth: 0)
        let queue = WalkQueue(start: root) { false }
        let listed = Mutex<[[UInt8]]>([])
        let walkers = Self.run(4, name: "walker") { _ in
            while let directory = queue.next() {
                listed.withLock { $0.append(directory.path) }
                let children = directory.depth == 4 ? [] : (0..<6).map { child in
                    PendingDirectory(path: directory.path + [UInt8(child)], ancestors: [], depth: directory.depth + 1)
                }
                queue.finished(adding: children)
            }
        }
        let finished = try await onThread {
            waitWhileProgressing(progress: { listed.withLock { $0.count } }) {
                walkers.done.wait(timeout: .now()) == .success
            }
        }
        try #require(finished, "a walker stayed asleep after the last directory")
        walkers.threads.forEach { $0.join() }
        let paths = listed.withLock { $0 }
        let expected = 1 + 6 + 36 + 216 + 1_296
        #expect(paths.count == expected)
        #expect(Set(paths).count == paths.count, "no directory listed twice")
    }
}
