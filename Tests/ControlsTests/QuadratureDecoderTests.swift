@testable import Controls
import Testing

@Suite struct QuadratureDecoderTests {
    /// Feeds (contact, level) steps; returns the detents.
    func turn(_ d: inout QuadratureDecoder, _ steps: [(String, Bool)]) -> [Int] {
        steps.map { step in d.feed(isA: step.0 == "A", level: step.1) }.filter { $0 != 0 }
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
        var a = DetentAccelerator(window: 60_000_000, maxMultiplier: 4)
        #expect(a.scale(1, at: 0) == 1)
        #expect(a.scale(1, at: 30_000_000) == 2)
        #expect(a.scale(1, at: 40_000_000) == 4)
        #expect(a.scale(-1, at: 45_000_000) == -1)
        #expect(a.scale(-1, at: 200_000_000) == -1)
    }

    @Test func trackerRecoversADetentWhoseEdgesArrivedOutOfOrder() {
        // Counter-clockwise B+, A+, B-, A- (1 ms apart) delivered as B+, B-, A+, A-.
        var t = EncoderTracker(QuadratureDecoder(transitionsPerDetent: 4))
        #expect(t.edge(isA: false, level: true, at: 1_000_000) == 0)
        #expect(t.edge(isA: false, level: false, at: 3_000_000) == 0)
        #expect(t.edge(isA: true, level: true, at: 2_000_000) == 0)
        #expect(t.edge(isA: true, level: false, at: 4_000_000) == -1)
        // In order afterwards: one detent clockwise.
        let cw = [(true, true), (false, true), (true, false), (false, false)].enumerated().map { i, e in
            t.edge(isA: e.0, level: e.1, at: 10_000_000 + UInt64(i) * 1_000_000)
        }
        #expect(cw == [0, 0, 0, 1])
    }

    @Test func trackerCorrectsADetentCountedTheWrongWay() {
        // Counter-clockwise B+, A+, B-, A- delivered as A+ first: clockwise would complete only with the rest, so
        // a late edge that turns a counted detent around is reported as the difference.
        var t = EncoderTracker(QuadratureDecoder(transitionsPerDetent: 1))
        #expect(t.edge(isA: true, level: true, at: 2_000_000) == 1)
        #expect(t.edge(isA: false, level: true, at: 1_000_000) == -3)
    }

    @Test func aSkippedCodeCountsTwoStepsInTheLastDirection() {
        var d = QuadratureDecoder(transitionsPerDetent: 4)
        #expect(d.feed(code: 0b10) == 0)
        #expect(d.feed(code: 0b01) == 0)
        #expect(d.feed(code: 0b00) == 1)
    }
}
