import AudioCore

/// The output thread's private, fixed-capacity list of marks between the listener and the end of the ring, in ring
/// order. Kept so that a cursor rewind (pause without hardware pause, device loss) still knows what each byte is.
///
/// Threads: the output thread only. Never allocates after `init`; not copyable, so its storage has one owner.
struct MarkList: ~Copyable {
    static let capacity = 64
    private let storage = FixedBuffer<TrackMark>(count: MarkList.capacity, repeating: .empty)
    private(set) var count = 0

    init() {}

    var isFull: Bool { count == Self.capacity }
    subscript(index: Int) -> TrackMark { storage[index] }

    mutating func append(_ mark: TrackMark) {
        precondition(count < Self.capacity)
        storage[count] = mark
        count += 1
    }

    /// Removes the first `n` marks.
    mutating func removeFirst(_ n: Int) {
        guard n > 0 else { return }
        for i in 0..<(count - n) { storage[i] = storage[i + n] }
        count -= n
    }

    /// Removes every mark at or after `position`.
    mutating func truncate(at position: Int) {
        while count > 0 && storage[count - 1].position >= position { count -= 1 }
    }

    /// Index of the last mark at or before `position` that is not an end mark.
    func lastIndex(atOrBefore position: Int) -> Int? {
        var found: Int?
        for i in 0..<count where storage[i].position <= position && storage[i].kind != .end { found = i }
        return found
    }

    /// The first mark position strictly after `position`.
    func nextPosition(after position: Int) -> Int? {
        for i in 0..<count where storage[i].position > position { return storage[i].position }
        return nil
    }
}
