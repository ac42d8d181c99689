import FermataCore
import Testing

/// Semitones as people write them, parsed digit by digit, and back.
@Suite struct TranspositionTextTests {
    @Test func semitonesToCentsAndBack() {
        let cases: [(String, Int?)] = [
            ("7", 700), ("+7", 700), ("-2", -200), ("3.5", 350), ("0.15", 15), ("-0.05", -5), ("12.5", 1250),
            ("-12.5", -1250), ("12.51", nil), ("13", nil), ("0.123", nil), ("1e2", nil), ("", nil), ("-", nil),
            (".5", nil), ("5.", nil), ("nan", nil), ("١", nil), ("99999999999999999999", nil),
        ]
        for (text, cents) in cases { #expect(Transposition.cents(semitones: text) == cents, "\(text)") }
        for cents in [0, 5, 15, 50, 350, -1250, 1250, -105] {
            #expect(Transposition.cents(semitones: Transposition.semitonesText(cents: cents)) == cents)
        }
        #expect(Transposition.semitonesText(cents: 350) == "+3.5" && Transposition.semitonesText(cents: -5) == "-0.05")
    }
}
