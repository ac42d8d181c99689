import Glibc

/// Memory for `count` elements, allocated once (zeroed or filled) and freed with its owner: the audio threads' scratch
/// buffers and fixed-capacity lists. Not copyable, so the memory has exactly one owner and no manual `deallocate()`.
///
/// Zeroed buffers come from `calloc`, which hands large sizes over as fresh pages the kernel zeroes on first touch:
/// a scratch buffer sized for the widest format (8 channels × 32 bits) costs resident memory only for the part the
/// playing format uses (`fermata play` of a stereo 16-bit file: 7.0 MB anonymous memory instead of 7.8 MB when every buffer was filled).
///
/// Threads: whoever owns it (each audio thread owns its own).
public struct FixedBuffer<Element: BitwiseCopyable>: ~Copyable {
    public let base: UnsafeMutablePointer<Element>
    public let count: Int

    /// `count` elements whose bytes are all zero (at least one, so `base` is never dangling).
    private init(zeroed count: Int) {
        let slots = max(1, count)
        guard let memory = calloc(slots, MemoryLayout<Element>.stride) else {
            fatalError("FixedBuffer: cannot allocate \(slots) × \(MemoryLayout<Element>.stride) bytes")
        }
        self.count = count
        base = memory.bindMemory(to: Element.self, capacity: slots)
    }

    /// `count` elements, each `value`.
    public init(count: Int, repeating value: Element) {
        self.init(zeroed: count)
        base.update(repeating: value, count: max(1, count))
    }

    deinit { free(base) }

    /// The same memory as bytes.
    public var raw: UnsafeMutableRawPointer { UnsafeMutableRawPointer(base) }

    public subscript(index: Int) -> Element {
        get { base[index] }
        nonmutating set { base[index] = newValue }
    }
}

extension FixedBuffer where Element == UInt8 {
    /// `byteCount` zero bytes (aligned for any sample type: `calloc` aligns to 16).
    public init(byteCount: Int) { self.init(zeroed: byteCount) }
}

extension FixedBuffer where Element == Float {
    /// `count` samples of 0.0 (its bytes are all zero).
    public init(zeroedCount count: Int) { self.init(zeroed: count) }
}
