import FermataCore
import Testing

/// Tap tempo as musicians tap: steady presses, a recorded sequence with a player's jitter, and the slips that start
/// a new count (a missed tap, a doubled one, a pause).
@Suite struct TapTempoTests {
    /// Taps at these milliseconds; the tempo after each.
    static func tap(_ milliseconds: [UInt64], from start: UInt64 = 5_000_000_000) -> (TapTempo, [Double?]) {
        var taps = TapTempo()
        let results = milliseconds.map { taps.tap(atNanoseconds: start + $0 * 1_000_000) }
        return (taps, results)
    }

    @Test func fourPressesHalfASecondApartAre120() {
        let (_, results) = Self.tap([0, 500, 1000, 1500])
        #expect(results[0] == nil)
        for bpm in results.dropFirst() { #expect(abs(bpm! - 120) < 1, "\(bpm!)") }
    }

    /// Taps along a 92 BPM click (652 ms) as a player taps: each off the grid by up to 14 ms, the intervals from 633
    /// to 678 ms. The last interval alone says 91.2 BPM, the mean of the last two 93.0; the fit over the taps says
    /// 92.1.
    @Test func aRecordedSequenceWithJitterFitsItsBeat() {
        let recorded: [UInt64] = [0, 640, 1318, 1951, 2597, 3270, 3903, 4561]
        let (_, results) = Self.tap(recorded)
        let last = results.last!!
        #expect(abs(last - 92) < 1, "\(last)")
        // Every estimate from the fourth tap on is within a beat per minute and a half of it.
        for bpm in results.dropFirst(3) { #expect(abs(bpm! - 92) < 1.5, "\(bpm!)") }
    }

    @Test func theWindowFollowsATempoThatSettles() {
        // Eight taps at 100 BPM, then eight at 104: the fit keeps the last eight only.
        let first = (0..<8).map { UInt64($0) * 600 }
        let second = (1...8).map { 4_200 + UInt64($0) * 577 }
        let (_, results) = Self.tap(first + second)
        #expect(abs(results[7]! - 100) < 0.5)
        #expect(abs(results.last!! - 103.99) < 0.5, "\(results.last!!)")
    }

    @Test func aPauseAMissedTapOrADoubledTapStartsANewCount() {
        // A pause over 2 s: the next tap is a first tap.
        var (taps, _) = Self.tap([0, 500, 1000])
        #expect(taps.tap(atNanoseconds: 5_000_000_000 + 3_100 * 1_000_000) == nil)
        // A missed tap (twice the interval) and a doubled one (a fifth of it) restart from that tap.
        (taps, _) = Self.tap([0, 500, 1000, 2000])
        #expect(taps.beatsPerMinute == nil)
        (taps, _) = Self.tap([0, 500, 1000, 1100, 1600])
        #expect(abs(taps.beatsPerMinute! - 120) < 1)
        // A clock going backwards (a reboot between taps) cannot trap or give a negative tempo.
        (taps, _) = Self.tap([0, 500])
        #expect(taps.tap(atNanoseconds: 1) == nil)
    }

    @Test func temposOutsideTheCountInRangeAreNone() {
        #expect(Self.tap([0, 100]).1.last! == nil, "600 BPM")
        #expect(Self.tap([0, 1990]).1.last!.map { abs($0 - 30.15) < 0.1 } == true, "30 BPM is a tempo")
    }
}
