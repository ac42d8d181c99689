/// The scan's map from a path's 64-bit hash to the index of a known file: an open-addressing table with linear
/// probing, sized once for the files the database knows. The keys are already well-mixed hashes, so a lookup is a
/// mask and a probe or two, where a `Dictionary` would hash the hash again (a no-change rescan looks up every file
/// of the library).
///
/// A value type: built by the scan thread while loading, then read by the walking threads (reads only).
struct PathHashIndex: Sendable {
    private static let empty = Int32.min
    private var keys: [UInt64]
    private var values: [Int32]
    private let mask: Int

    /// A table with room for `expected` keys at most half full (it grows when more arrive).
    init(expected: Int) {
        var capacity = 16
        while capacity < 2 * max(0, expected), capacity < 1 << 40 { capacity <<= 1 }
        keys = [UInt64](repeating: 0, count: capacity)
        values = [Int32](repeating: Self.empty, count: capacity)
        mask = capacity - 1
    }

    subscript(key: UInt64) -> Int32? {
        var slot = Self.slot(key, mask)
        while true {
            let value = values[slot]
            if value == Self.empty { return nil }
            if keys[slot] == key { return value }
            slot = (slot + 1) & mask
        }
    }

    /// Sets `value` for `key`; returns the value it replaced. `value` must not be `Int32.min`.
    @discardableResult
    mutating func updateValue(_ value: Int32, forKey key: UInt64) -> Int32? {
        precondition(value != Self.empty, "the empty marker is not a value")
        if values.count - count <= values.count / 2 { grow() }
        var slot = Self.slot(key, mask)
        while true {
            let old = values[slot]
            if old == Self.empty {
                keys[slot] = key
                values[slot] = value
                count += 1
                return nil
            }
            if keys[slot] == key {
                values[slot] = value
                return old
            }
            slot = (slot + 1) & mask
        }
    }

    private(set) var count = 0

    private mutating func grow() {
        var larger = PathHashIndex(expected: values.count)
        for slot in values.indices where values[slot] != Self.empty { larger.updateValue(values[slot], forKey: keys[slot]) }
        self = larger
    }

    private static func slot(_ key: UInt64, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: key ^ (key >> 29)) & mask
    }
}
