@testable import Controls
import Testing

@Suite struct QuadratureDecoderTests {
    /// Feeds (contact, level) steps 1 ms apart from `start`; returns the detents.
    func turn(_ d: inout QuadratureDecoder, _ steps: [(String, Bool)], start: UInt64 = 0) -> [Int] {
        steps.enumerated().map { i, step in
            d.feed(isA: step.0 == "A", level: step.1, at: start + UInt64(i) * 1_000_000)
        }.filter { $0 != 0 }
    }

    let cw: [(String, Bool)] = [("A", true), ("B", true), ("A", false), ("B", false)]
    let ccw: [(String, Bool)] = [("B", true), ("A", true), ("B", false), ("A", false)]

    @Test func fourTransitionsPerDetent() {
        var d = QuadratureDecoder(transitionsPerDetent: 4)
        #expect(turn(&d, cw) == [1])
        #expect(turn(&d, ccw) == [-1])
    }

    @Test func twoAndOneTransitionsPerDetent() {
        var two = QuadratureDecoder(transitionsPerDetent: 2)
        #expect(turn(&two, cw) == [1, 1])
        var one = QuadratureDecoder(transitionsPerDetent: 1)
        #expect(turn(&one, ccw) == [-1, -1, -1, -1])
    }

    @Test func inversionSwapsTheDirection() {
        var d = QuadratureDecoder(transitionsPerDetent: 4, inverted: true)
        #expect(turn(&d, cw) == [-1])
    }

    @Test func bounceOnOneContactCancelsOut() {
        var d = QuadratureDecoder(transitionsPerDetent: 4)
        let bouncy: [(String, Bool)] = [("A", true), ("A", false), ("A", true), ("A", false), ("A", true),
                                        ("B", true), ("B", false), ("B", true), ("A", false), ("B", false),
                                        ("B", true), ("B", false)]
        #expect(turn(&d, bouncy) == [1])
    }

    @Test func halfATurnAndBackIsNothing() {
        var d = QuadratureDecoder(transitionsPerDetent: 4)
        #expect(turn(&d, [("A", true), ("B", true), ("B", false), ("A", false)]).isEmpty)
    }

    @Test func accelerationMultipliesCloseDetentsUpToTheMaximum() {
        var d = QuadratureDecoder(transitionsPerDetent: 1, accelerationWindow: 60_000_000, maxMultiplier: 4)
        #expect(d.feed(isA: true, level: true, at: 0) == 1)
        #expect(d.feed(isA: false, level: true, at: 30_000_000) == 2)
        #expect(d.feed(isA: true, level: false, at: 40_000_000) == 4)
        #expect(d.feed(isA: false, level: false, at: 200_000_000) == 1)
    }

    @Test func aSkippedCodeCountsTwoStepsInTheLastDirection() {
        var d = QuadratureDecoder(transitionsPerDetent: 4)
        #expect(d.feed(code: 0b10, at: 0) == 0)
        #expect(d.feed(code: 0b01, at: 1) == 0)
        #expect(d.feed(code: 0b00, at: 2) == 1)
    }
}
