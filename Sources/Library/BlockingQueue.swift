import Foundation

/// A bounded first-in first-out hand-over between the scan's threads (walker → readers → writer). `push` blocks
/// while the queue is full, which is what bounds the scan's memory; `pop` blocks while it is empty and returns nil
/// once the queue is closed and drained.
///
/// Thread-safe (a condition variable guards everything); any number of producers and consumers. Never used from the
/// cooperative pool: the scan runs on its own threads.
// @unchecked: every stored property is read and written only under `condition` (a blocking queue needs a condition
// wait, which Synchronization's Mutex does not offer).
final class BlockingQueue<Element: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Element] = []
    private var head = 0
    private var closed = false
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Adds `item`, waiting for room. Returns false (dropping the item) when the queue was closed.
    @discardableResult
    func push(_ item: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !closed, items.count - head >= capacity { condition.wait() }
        guard !closed else { return false }
        items.append(item)
        condition.broadcast()
        return true
    }

    /// The oldest item, waiting for one; nil when closed and empty.
    func pop() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while head == items.count, !closed { condition.wait() }
        guard head < items.count else { return nil }
        return take()
    }

    /// The oldest item if one is waiting, without blocking.
    func tryPop() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        guard head < items.count else { return nil }
        return take()
    }

    /// Removes the oldest item (the lock held, one present), dropping the consumed prefix now and then.
    private func take() -> Element {
        let item = items[head]
        head += 1
        if head > 64, head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        condition.broadcast()
        return item
    }

    /// No more pushes: consumers drain what is left, then get nil; waiting producers return false.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
