/// Feeds an encoder's decoder in kernel-timestamp order although its two contacts' edges may reach user space out of
/// order: each line has its own interrupt thread (and, on the v1 API, its own descriptor), so under load the edge of
/// A can arrive after a later edge of B. Misordered edges look like bounce and a detent would be lost.
///
/// Edges are decoded at once (no added latency). The recent ones are kept; when one arrives older than the newest
/// already decoded, the recent edges are decoded again in timestamp order from the state before them, and the
/// difference between that count and what was already reported comes out as a correction (usually the detent that
/// had been lost). A value type; owned and driven by one thread (the GPIO thread) or a test.
public struct EncoderTracker: Sendable, Equatable {
    /// One contact edge as decoded.
    struct Edge: Sendable, Equatable {
        var time: UInt64
        var isA: Bool
        var level: Bool
    }

    /// How long edges are kept for re-sequencing (ns), and at most how many.
    static let horizon: UInt64 = 100_000_000
    static let capacity = 32

    private(set) var decoder: QuadratureDecoder
    /// The decoder before `recent`.
    private var base: QuadratureDecoder
    /// Decoded edges, in timestamp order.
    private var recent: [Edge] = []
    /// Detents reported for the edges in `recent`.
    private var reported = 0

    public init(_ decoder: QuadratureDecoder) {
        self.decoder = decoder
        base = decoder
    }

    /// One edge; returns the signed detents to report now (a correction when the edge came late).
    public mutating func edge(isA: Bool, level: Bool, at time: UInt64) -> Int {
        let edge = Edge(time: time, isA: isA, level: level)
        var detents: Int
        if let newest = recent.last, time < newest.time {
            let index = recent.firstIndex { $0.time > time } ?? recent.count
            recent.insert(edge, at: index)
            var replay = base
            let total = recent.reduce(0) { $0 + replay.feed(isA: $1.isA, level: $1.level) }
            decoder = replay
            detents = total - reported
            reported = total
        } else {
            detents = decoder.feed(isA: isA, level: level)
            recent.append(edge)
            reported += detents
        }
        // Forget what is too old to be overtaken any more.
        while let oldest = recent.first, recent.count > Self.capacity || oldest.time + Self.horizon < time {
            reported -= base.feed(isA: oldest.isA, level: oldest.level)
            recent.removeFirst()
        }
        return detents
    }
}

/// Speeds up a quick spin: a detent that follows the previous one in the same direction within `window` counts
/// `window / interval` times, at most `maxMultiplier`. A value type; one thread or a test.
public struct DetentAccelerator: Sendable, Equatable {
    public let window: UInt64
    public let maxMultiplier: Int
    private var last: (time: UInt64, direction: Int)?

    /// - Parameter window: nanoseconds; 0 disables acceleration.
    public init(window: UInt64, maxMultiplier: Int) {
        self.window = window
        self.maxMultiplier = max(1, maxMultiplier)
    }

    public static func == (l: Self, r: Self) -> Bool {
        l.window == r.window && l.maxMultiplier == r.maxMultiplier && l.last?.time == r.last?.time
            && l.last?.direction == r.last?.direction
    }

    /// The detents, multiplied when they follow the previous ones closely.
    public mutating func scale(_ detents: Int, at time: UInt64) -> Int {
        guard detents != 0 else { return 0 }
        let direction = detents > 0 ? 1 : -1
        defer { last = (time, direction) }
        guard window > 0, let last, last.direction == direction, time > last.time, time - last.time < window else {
            return detents
        }
        return detents * min(maxMultiplier, max(1, Int(window / (time - last.time))))
    }
}
