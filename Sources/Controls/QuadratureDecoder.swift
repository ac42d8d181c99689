/// Decodes a rotary encoder's two contacts (A, B) into detents with a full-step transition table.
///
/// The contacts' logical levels form a 2-bit Gray code; one detent is `transitionsPerDetent` (1, 2 or 4) steps of
/// it. A step counts +1 or −1 by the table below; a detent is emitted only when the code arrives back at a rest
/// position (logical 00 — both contacts open — and, for 2 steps per detent, 11 as well) with the count a detent's
/// worth away from the last rest. Bounce on one contact walks back and forth between two neighbouring codes, +1 −1
/// +1 −1, and so cancels out: no debounce is needed (or wanted) on A and B. A jump of two codes (an edge lost in a
/// fast spin) counts two steps in the direction of the last step.
///
/// Acceleration: when detents come faster than `accelerationWindow` apart, each counts `window / interval` times
/// (at most `maxMultiplier`), so a quick spin covers more volume.
///
/// A value type; owned and driven by one thread (the GPIO thread) or a test.
public struct QuadratureDecoder: Sendable, Equatable {
    /// Step for each (previous code << 2 | new code), codes as (A << 1 | B): +1 clockwise (A leads), −1
    /// counter-clockwise, 0 for no change, 2 for a skipped code.
    static let table: [Int8] = [
        0, -1, +1, 2,
        +1, 0, 2, -1,
        -1, 2, 0, +1,
        2, +1, -1, 0,
    ]

    public let transitionsPerDetent: Int
    public let inverted: Bool
    /// Nanoseconds; 0 disables acceleration.
    public let accelerationWindow: UInt64
    public let maxMultiplier: Int
    private var code: UInt8
    private var steps = 0
    private var lastDirection = 0
    private var lastDetent: (time: UInt64, direction: Int)?

    public init(transitionsPerDetent: Int = 4, inverted: Bool = false, accelerationWindow: UInt64 = 0,
                maxMultiplier: Int = 1, a: Bool = false, b: Bool = false) {
        precondition([1, 2, 4].contains(transitionsPerDetent), "transitions per detent must be 1, 2 or 4")
        self.transitionsPerDetent = transitionsPerDetent
        self.inverted = inverted
        self.accelerationWindow = accelerationWindow
        self.maxMultiplier = max(1, maxMultiplier)
        code = (a ? 2 : 0) | (b ? 1 : 0)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.transitionsPerDetent == rhs.transitionsPerDetent && lhs.inverted == rhs.inverted
            && lhs.accelerationWindow == rhs.accelerationWindow && lhs.maxMultiplier == rhs.maxMultiplier
            && lhs.code == rhs.code && lhs.steps == rhs.steps && lhs.lastDirection == rhs.lastDirection
            && lhs.lastDetent?.time == rhs.lastDetent?.time && lhs.lastDetent?.direction == rhs.lastDetent?.direction
    }

    /// Feeds the new level of contact A (`isA`) or B at `time`. Returns signed detents (positive: clockwise, after
    /// inversion), already multiplied by the acceleration, or 0.
    public mutating func feed(isA: Bool, level: Bool, at time: UInt64) -> Int {
        let mask: UInt8 = isA ? 2 : 1
        let next = level ? code | mask : code & ~mask
        return feed(code: next, at: time)
    }

    /// Feeds both contacts' levels as one code (A << 1 | B).
    public mutating func feed(code next: UInt8, at time: UInt64) -> Int {
        let step = Int(Self.table[Int(code << 2 | next)])
        code = next
        switch step {
        case 0: return 0
        case 2: steps += 2 * lastDirection
        default:
            steps += step
            lastDirection = step
        }
        guard isRest(next) else { return 0 }
        // Arrived at a rest: a detent's worth of steps (rounded, ties away from zero) since the last rest.
        let half = transitionsPerDetent / 2
        let detents = steps >= 0 ? (steps + half) / transitionsPerDetent : -((-steps + half) / transitionsPerDetent)
        steps = 0
        guard detents != 0 else { return 0 }
        return accelerate(inverted ? -detents : detents, at: time)
    }

    private func isRest(_ code: UInt8) -> Bool {
        switch transitionsPerDetent {
        case 4: code == 0
        case 2: code == 0 || code == 3
        default: true
        }
    }

    private mutating func accelerate(_ detents: Int, at time: UInt64) -> Int {
        let direction = detents > 0 ? 1 : -1
        defer { lastDetent = (time, direction) }
        guard accelerationWindow > 0, let last = lastDetent, last.direction == direction, time > last.time else {
            return detents
        }
        let interval = time - last.time
        guard interval < accelerationWindow else { return detents }
        let multiplier = min(maxMultiplier, Int(accelerationWindow / max(interval, 1)))
        return detents * max(1, multiplier)
    }
}
