import Glibc
import Synchronization

/// A preallocated single-producer/single-consumer byte ring carrying interleaved PCM in the device format.
///
/// Positions are monotonic byte counts since the ring was made (they never wrap in practice: 2^63 bytes). Three
/// indices matter: `writePosition` (producer: end of valid data), the consumer's private cursor (what it has handed to
/// the device), and `releasedPosition` (consumer: data before it may be overwritten). The consumer releases only what
/// the listener has heard, so after a device drop it can rewind its cursor to the released position and lose nothing.
///
/// Threads: exactly one producer (the decoder thread) calls `write`, `freeBytes` and `truncate`; exactly one consumer
/// (the output thread) calls `readableBytes`, `copy` and `release`. No method locks or allocates.
///
/// Memory ordering (the bytes in `storage` are plain memory; only the two indices are atomic). Two release/acquire
/// pairs carry everything, and each index has one writer, so that writer reads its own index relaxed:
/// - **Data published** — the producer copies bytes into `storage`, then stores `writeIndex` *releasing* (`write`,
///   `truncate`); the consumer loads `writeIndex` *acquiring* (`readableBytes`, `writePosition`) before it `copy`s
///   the bytes below that index. Without the pair a weakly ordered CPU (ARM) may let the consumer see the new index
///   before the bytes, and play stale samples.
/// - **Space returned** — the consumer finishes reading (`copy`), then stores `releaseIndex` *releasing* (`release`,
///   `reset`); the producer loads `releaseIndex` *acquiring* (`freeBytes`, `releasedPosition`, `truncate`'s check)
///   before it overwrites the bytes below that index. Without the pair the producer's new bytes may land before the
///   consumer's reads of the old ones have completed (a release store orders earlier loads too).
/// - `truncate` moves `writeIndex` back; that is safe only because the engine's flush handshake (`FlushHandshake`,
///   behind a Mutex, and `resumed`, a release/acquire pair, in Engine's `EngineShared`) keeps the consumer from
///   reading past the new end until the producer announces fresh data.
/// `filledBytes()` and `freeBytes()` read the other side's index only as a count; used from the consumer (wake-up
/// heuristics) they may be stale but never give access to bytes. Tested by `RingAndQueueOrderingStressTests`.
public final class PCMRing: @unchecked Sendable {
    public let capacity: Int
    private let storage: UnsafeMutableRawPointer
    private let writeIndex = Atomic<Int>(0)
    private let releaseIndex = Atomic<Int>(0)

    /// Makes a ring of at least `minimumCapacity` bytes (rounded up to a power of two), touches and locks its pages.
    public init(minimumCapacity: Int) {
        var size = 4096
        while size < minimumCapacity { size <<= 1 }
        capacity = size
        storage = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 64)
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        _ = mlock(storage, size)  // best effort: keeps the ring resident (RLIMIT_MEMLOCK permitting)
    }

    deinit { storage.deallocate() }

    // MARK: producer

    /// End of the valid data.
    public var writePosition: Int { writeIndex.load(ordering: .acquiring) }
    /// Start of the data the consumer may still need.
    public var releasedPosition: Int { releaseIndex.load(ordering: .acquiring) }

    /// Bytes the producer may write now.
    public func freeBytes() -> Int {
        capacity - (writeIndex.load(ordering: .relaxed) - releaseIndex.load(ordering: .acquiring))
    }

    /// Bytes written but not yet released by the consumer.
    public func filledBytes() -> Int { capacity - freeBytes() }

    /// Copies as much of `source` as fits and publishes it; returns the bytes written.
    @discardableResult
    public func write(_ source: UnsafeRawBufferPointer) -> Int {
        let count = min(source.count, freeBytes())
        guard count > 0, let base = source.baseAddress else { return 0 }
        let position = writeIndex.load(ordering: .relaxed)
        let offset = position & (capacity - 1)
        let first = min(count, capacity - offset)
        (storage + offset).copyMemory(from: base, byteCount: first)
        if first < count { storage.copyMemory(from: base + first, byteCount: count - first) }
        writeIndex.store(position + count, ordering: .releasing)
        return count
    }

    /// Moves the write position back to `position`, discarding everything after it. Only while the consumer has
    /// promised (through the engine's flush handshake) not to read past `position`.
    public func truncate(at position: Int) {
        precondition(position >= releaseIndex.load(ordering: .acquiring), "truncate before released data")
        writeIndex.store(position, ordering: .releasing)
    }

    // MARK: consumer

    /// Bytes available to the consumer from `cursor`.
    public func readableBytes(from cursor: Int) -> Int { writeIndex.load(ordering: .acquiring) - cursor }

    /// Copies `count` bytes starting at ring position `position` into `destination`.
    public func copy(from position: Int, into destination: UnsafeMutableRawPointer, count: Int) {
        let offset = position & (capacity - 1)
        let first = min(count, capacity - offset)
        destination.copyMemory(from: storage + offset, byteCount: first)
        if first < count { (destination + first).copyMemory(from: storage, byteCount: count - first) }
    }

    /// Lets the producer reuse everything before `position`.
    public func release(upTo position: Int) {
        if position > releaseIndex.load(ordering: .relaxed) { releaseIndex.store(position, ordering: .releasing) }
    }

    /// Forgets all data (both sides idle): positions jump to the current write position.
    public func reset(consumerCursorAt position: Int) { releaseIndex.store(position, ordering: .releasing) }
}
