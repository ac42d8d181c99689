/// Decodes a rotary encoder's two contacts (A, B) into detents with a full-step transition table.
///
/// The contacts' logical levels form a 2-bit Gray code; one detent is `transitionsPerDetent` (1, 2 or 4) steps of
/// it. A step counts +1 or −1 by the table below; a detent is emitted only when the code arrives back at a rest
/// position (logical 00 — both contacts open — and, for 2 steps per detent, 11 as well) with the count a detent's
/// worth away from the last rest. Bounce on one contact walks back and forth between two neighbouring codes, +1 −1
/// +1 −1, and so cancels out: no debounce is needed (or wanted) on A and B. A jump of two codes (an edge lost in a
/// fast spin) counts two steps in the direction of the last step.
///
/// Acceleration is separate (`DetentAccelerator`), and so is putting edges that arrive out of order back in order
/// (`EncoderTracker`).
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
    private var code: UInt8
    private var steps = 0
    private var lastDirection = 0

    public init(transitionsPerDetent: Int = 4, inverted: Bool = false, a: Bool = false, b: Bool = false) {
        precondition([1, 2, 4].contains(transitionsPerDetent), "transitions per detent must be 1, 2 or 4")
        self.transitionsPerDetent = transitionsPerDetent
        self.inverted = inverted
        code = (a ? 2 : 0) | (b ? 1 : 0)
    }

    /// Feeds the new level of contact A (`isA`) or B. Returns signed detents (positive: clockwise, after inversion),
    /// or 0.
    public mutating func feed(isA: Bool, level: Bool) -> Int {
        let mask: UInt8 = isA ? 2 : 1
        return feed(code: level ? code | mask : code & ~mask)
    }

    /// Feeds both contacts' levels as one code (A << 1 | B).
    public mutating func feed(code next: UInt8) -> Int {
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
        return inverted ? -detents : detents
    }

    private func isRest(_ code: UInt8) -> Bool {
        switch transitionsPerDetent {
        case 4: code == 0
        case 2: code == 0 || code == 3
        default: true
        }
    }
}
