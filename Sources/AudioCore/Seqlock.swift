import Synchronization

/// One writer publishes a small value; any number of readers take consistent copies, without locks and without
/// allocating (the output thread publishes the heard position through it every period).
///
/// The value is kept as its bytes in relaxed atomic words (so a read racing a write is a retry, never undefined
/// behaviour), ordered by a sequence number as in Boehm's seqlock:
/// - the writer stores `sequence = odd` (relaxed), then a *releasing fence*, then the words: the fence orders the odd
///   mark before every word store. It pairs with the reader's *acquiring fence* after its word loads: a reader that
///   loaded any word of this publish then sees `sequence` ≠ its first (even) value, and retries.
/// - the writer stores the words, then `sequence = even` *releasing*; it pairs with the reader's first `sequence` load
///   *acquiring*: a reader that sees the even value sees every word of that publish (or a later one, and then the
///   re-check fails).
/// A copy is turned back into a `Value` only after the re-check passed, so a torn mix of two publishes is never
/// materialised (it could be an invalid enum).
///
/// Threads: `publish` from one thread at a time (the writer); `read` from any thread.
public final class Seqlock<Value: BitwiseCopyable>: Sendable {
    /// The largest value it holds, in 8-byte words.
    public static var capacityWords: Int { Words.count }
    private typealias Words = InlineArray<16, UInt64>

    private let sequence = Atomic<Int>(0)
    private let words: InlineArray<16, Atomic<UInt64>>

    public init(_ initial: Value) {
        precondition(MemoryLayout<Value>.size <= MemoryLayout<Words>.size,
                     "a seqlock holds at most \(MemoryLayout<Words>.size) bytes")
        let bytes = Self.words(of: initial)
        words = InlineArray { Atomic(bytes[$0]) }
    }

    /// The writer: publishes `value`.
    public func publish(_ value: Value) {
        let bytes = Self.words(of: value)
        let s = sequence.load(ordering: .relaxed)
        sequence.store(s &+ 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        for i in 0..<Self.used { words[i].store(bytes[i], ordering: .relaxed) }
        sequence.store(s &+ 2, ordering: .releasing)
    }

    /// Any thread: a consistent copy of the value last published.
    public func read() -> Value {
        var copy = Words(repeating: 0)
        while true {
            let s1 = sequence.load(ordering: .acquiring)
            if s1 & 1 == 1 { continue }
            for i in 0..<Self.used { copy[i] = words[i].load(ordering: .relaxed) }
            atomicMemoryFence(ordering: .acquiring)
            guard sequence.load(ordering: .relaxed) == s1 else { continue }
            return withUnsafeBytes(of: copy) { $0.loadUnaligned(as: Value.self) }
        }
    }

    /// The words the value occupies.
    private static var used: Int { (MemoryLayout<Value>.size + 7) / 8 }

    private static func words(of value: Value) -> Words {
        var bytes = Words(repeating: 0)
        withUnsafeMutableBytes(of: &bytes) { target in
            withUnsafeBytes(of: value) { target.copyMemory(from: $0) }
        }
        return bytes
    }
}
