import Foundation
@testable import Recording
import Testing

/// The pieces that place a pass heard on the capture's timeline and measure the round trip, with no device: a clock
/// line through jittery readings of a device whose crystal runs 100 ppm fast recovers its frame at any instant to a
/// fraction of a frame; readings going back start it anew; the click is found in noise and delay at its exact sample,
/// and one click misheard does not move the median.
@Suite struct ClockAlignmentTests {
    @Test func aClockLineThroughJitteryReadingsIsExactToAFrame() throws {
        var line = ClockLine(nominalRate: 48_000)
        let rate = 48_000 * 1.0001  // the device's crystal, 100 ppm fast against CLOCK_MONOTONIC
        let start: UInt64 = 5_000_000_000
        var jitter: UInt64 = 0x9E37_79B9
        for i in 0..<400 {
            let ns = start + UInt64(i) * 10_000_000  // a reading every 10 ms
            jitter = jitter &* 6_364_136_223_846_793_005 &+ 1
            // Each report is up to ±240 frames (±5 ms) off, as a period-granular position report is.
            let error = Double(Int64(jitter >> 33) % 481 - 240)
            let frame = 1_000 + rate * Double(ns - start) / 1e9 + error
            line.add(frame: Int64(frame.rounded()), nanoseconds: ns)
        }
        #expect(line.count == 400)
        let at: UInt64 = start + 3_000_000_000
        let truth = 1_000 + rate * 3
        let fitted = try #require(line.frame(atNanoseconds: at))
        #expect(abs(fitted - truth) < 24, "within half a millisecond: \(fitted) against \(truth)")
        #expect(abs(line.rate - rate) < 1, "\(line.rate)")
        let back = try #require(line.nanoseconds(atFrame: truth))
        #expect(abs(Double(back) - Double(at)) < 500_000, "the inverse within half a millisecond")
        // A reading going back (the device restarted) starts the line anew.
        line.add(frame: 10, nanoseconds: start + 5_000_000_000)
        #expect(line.count == 1)
    }

    @Test func theClickIsFoundAtItsSampleThroughNoise() throws {
        let click = ClickCorrelation.click(rate: 48_000)
        #expect(click.count == 288 && click.contains { $0 != 0 })
        var signal = [Float](repeating: 0, count: 48_000)
        var state: UInt32 = 12_345
        for i in signal.indices {  // noise 26 dB under the click's peak
            state = state &* 1_664_525 &+ 1_013_904_223
            signal[i] = (Float(state >> 8) / Float(1 << 24) - 0.5) * 0.05
        }
        let delay = 21_347
        for (k, value) in click.enumerated() { signal[delay + k] += 0.6 * value }  // heard quieter than played
        let found = try #require(ClickCorrelation.locate(click, in: signal, from: 15_000, to: 30_000))
        #expect(found.index == delay && found.score > 0.8, "\(found)")
        #expect(ClickCorrelation.locate(click, in: [Float](repeating: 0, count: 2_000), from: 0, to: 1_000) == nil,
                "silence: nothing found")
        #expect(ClickCorrelation.median([1_120, 1_124, 1_123, 9_000, 1_124]) == 1_124)
        #expect(ClickCorrelation.median([]) == nil)
    }

    /// `fermata audio latency` plays 8 clicks 400 ms apart. A round trip longer than half that spacing (a Bluetooth
    /// speaker, a large device buffer, the kernel lab's relay: 504 ms there) must not be taken for a shorter one: each
    /// click heard 504 ms late is 104 ms after the next one's predicted place. Found in the kernel lab, where the old
    /// search (within half a spacing of each prediction) answered 104 ms and every take came out 400 ms early.
    @Test func aRoundTripLongerThanHalfTheClickSpacingIsNotAliased() throws {
        let rate = 48_000, spacing = 19_200, lead = 24_000
        let click = ClickCorrelation.click(rate: rate)
        for roundTrip in [0, 1_124, 9_650, 24_190, 40_001] {
            var signal = [Float](repeating: 0, count: 12 * rate)
            let predicted = (0..<8).map { lead + $0 * spacing }
            for p in predicted { for (k, value) in click.enumerated() { signal[p + roundTrip + k] += 0.6 * value } }
            let found = try #require(ClickCorrelation.roundTrip(click, in: signal, predicted: predicted,
                                                                spacing: spacing, rate: rate, minimumHeard: 4))
            #expect(found.samples == roundTrip && found.heard == 8, "round trip \(roundTrip): \(found)")
        }
    }
}
