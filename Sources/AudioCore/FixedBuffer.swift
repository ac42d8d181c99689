/// Memory for `count` elements, allocated and zeroed once and freed with its owner: the audio threads' scratch
/// buffers and fixed-capacity lists. Not copyable, so the memory has exactly one owner and no manual `deallocate()`.
///
/// Threads: whoever owns it (each audio thread owns its own).
public struct FixedBuffer<Element: BitwiseCopyable>: ~Copyable {
    public let base: UnsafeMutablePointer<Element>
    public let count: Int

    public init(count: Int, repeating value: Element) {
        self.count = count
        base = .allocate(capacity: max(1, count))
        base.initialize(repeating: value, count: max(1, count))
    }

    deinit { base.deallocate() }

    /// The same memory as bytes.
    public var raw: UnsafeMutableRawPointer { UnsafeMutableRawPointer(base) }

    public subscript(index: Int) -> Element {
        get { base[index] }
        nonmutating set { base[index] = newValue }
    }
}

extension FixedBuffer where Element == UInt8 {
    /// `byteCount` zeroed bytes (aligned for any sample type).
    public init(byteCount: Int) { self.init(count: byteCount, repeating: 0) }
}
