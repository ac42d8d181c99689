import Synchronization

/// A fixed-size lock-free single-producer/single-consumer queue of plain values.
///
/// Threads: one producer calls `push`; one consumer calls `peek`, `pop` and `isEmpty`. Neither locks nor allocates.
///
/// Memory ordering (the slots are plain memory; `head` and `tail` each have one writer, which reads its own index
/// relaxed):
/// - **Value published** — `push` writes the slot, then stores `tail` *releasing*; `peek`/`pop`/`isEmpty` load `tail`
///   *acquiring* before reading the slot, so a consumer that sees the new tail sees the whole value (never a stale or
///   half-written slot on a weakly ordered CPU).
/// - **Slot returned** — `pop` reads the slot, then stores `head` *releasing*; `push` loads `head` *acquiring* before
///   writing that slot again, so the producer cannot overwrite a value the consumer is still reading.
/// Tested by `RingAndQueueOrderingStressTests`.
public final class SPSCQueue<Element: BitwiseCopyable>: @unchecked Sendable {
    private let slots: UnsafeMutablePointer<Element>
    private let mask: Int
    private let head = Atomic<Int>(0)  // next to pop (consumer)
    private let tail = Atomic<Int>(0)  // next to push (producer)

    /// Capacity is rounded up to a power of two; `filler` initialises the storage.
    public init(capacity: Int, filler: Element) {
        var size = 2
        while size < capacity { size <<= 1 }
        mask = size - 1
        slots = .allocate(capacity: size)
        slots.initialize(repeating: filler, count: size)
    }

    deinit { slots.deallocate() }

    /// Appends `value`; false when full.
    @discardableResult
    public func push(_ value: Element) -> Bool {
        let t = tail.load(ordering: .relaxed)
        guard t - head.load(ordering: .acquiring) <= mask else { return false }
        slots[t & mask] = value
        tail.store(t + 1, ordering: .releasing)
        return true
    }

    /// The oldest value without removing it.
    public func peek() -> Element? {
        let h = head.load(ordering: .relaxed)
        guard h != tail.load(ordering: .acquiring) else { return nil }
        return slots[h & mask]
    }

    /// Removes and returns the oldest value.
    @discardableResult
    public func pop() -> Element? {
        let h = head.load(ordering: .relaxed)
        guard h != tail.load(ordering: .acquiring) else { return nil }
        let value = slots[h & mask]
        head.store(h + 1, ordering: .releasing)
        return value
    }

    public var isEmpty: Bool { head.load(ordering: .relaxed) == tail.load(ordering: .acquiring) }
}
