/// A bounded first-in first-out hand-over between the scan's threads (walker → readers → writer). `push` blocks
/// while the queue is full, which is what bounds the scan's memory; `pop` blocks while it is empty and returns nil
/// once the queue is closed and drained.
///
/// Any number of producers and consumers on any threads (the state is a `WaitableMutex`). Never used from the
/// cooperative pool: the scan runs on its own threads.
final class BlockingQueue<Element: Sendable>: Sendable {
    private struct State: Sendable {
        var items: [Element] = []
        var head = 0
        var closed = false
        var waiting: Int { items.count - head }

        /// Removes the oldest item (one is present), dropping the consumed prefix now and then.
        mutating func take() -> Element {
            let item = items[head]
            head += 1
            if head > 64, head * 2 > items.count {
                items.removeFirst(head)
                head = 0
            }
            return item
        }
    }

    private let state = WaitableMutex(State())
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Adds `item`, waiting for room. Returns false (dropping the item) when the queue was closed.
    @discardableResult
    func push(_ item: Element) -> Bool {
        let capacity = capacity
        return state.wait { state -> Bool? in
            if state.closed { return false }
            guard state.waiting < capacity else { return nil }
            state.items.append(item)
            return true
        }
    }

    /// The oldest item, waiting for one; nil when closed and empty.
    func pop() -> Element? {
        state.wait { state -> Element?? in
            if state.waiting > 0 { return .some(state.take()) }
            return state.closed ? .some(nil) : nil
        }
    }

    /// The oldest item if one is waiting, without blocking.
    func tryPop() -> Element? {
        state.change { state in state.waiting > 0 ? state.take() : nil }
    }

    /// No more pushes: consumers drain what is left, then get nil; waiting producers return false.
    func close() {
        state.change { $0.closed = true }
    }
}
