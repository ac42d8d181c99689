import FermataCore
import Testing

/// The one reader of decimal seconds (MPD's `rangeid`, a stored playlist's `#FERMATA-SPAN:`): digits in integer
/// arithmetic, rounded at the fourth decimal; everything else refused, nothing that could trap.
@Suite struct PlaySpanTests {
    @Test func decimalSecondsAreReadToTheMillisecond() {
        let read = { (text: String) in PlaySpan.milliseconds(decimalSeconds: text[...]) }
        #expect(read("12.5") == 12_500 && read("61.005") == 61_005 && read(".25") == 250 && read("3.") == 3_000)
        #expect(read("1.2345") == 1_235 && read("1.2344") == 1_234 && read("1.9995") == 2_000 && read("0") == 0)
        #expect(read("86400") == 86_400_000 && read("86400.001") == nil && read("9999999") == nil)
        for bad in ["", ".", "-1", "+1", "1e3", "nan", "inf", "1.2.3", "١٢", " 1", "0x10"] {
            #expect(read(bad) == nil, "\(bad)")
        }
    }

    @Test func mpdRangesParseAsMPDDoes() {
        #expect(PlaySpan.parseMPDRange("1.5:2") == .some(PlaySpan(startMilliseconds: 1_500, endMilliseconds: 2_000)))
        #expect(PlaySpan.parseMPDRange(":2") == .some(PlaySpan(startMilliseconds: 0, endMilliseconds: 2_000)))
        #expect(PlaySpan.parseMPDRange("0.5:") == .some(PlaySpan(startMilliseconds: 500)))
        #expect(PlaySpan.parseMPDRange(":") == .some(nil), "both ends empty: the whole file")
        for bad in ["2:1", "1:1", "1", "x:", "-1:2", "nan:", "1e3:", "1:2:3"] {
            #expect(PlaySpan.parseMPDRange(bad) == nil, "\(bad)")
        }
        #expect(PlaySpan(startMilliseconds: 0, endMilliseconds: 5, section: "a\u{7}b").problem != nil)
        #expect(PlaySpan(startMilliseconds: 12_500, endMilliseconds: 30_000).mpdRange == "12.500-30.000")
    }
}
