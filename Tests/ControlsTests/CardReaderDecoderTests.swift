@testable import Controls
import Testing

/// A card reader's key stream (what a USB RFID reader types) into card ids.
@Suite struct CardReaderDecoderTests {
    static let ms: UInt64 = 1_000_000

    /// Types `text` as a reader does: each key down then up 4 ms apart, then Enter; answers the ids that came out.
    static func type(_ text: String, keypad: Bool = false, into decoder: inout CardReaderDecoder, at start: UInt64 = 0,
                     enter: UInt16 = 28) -> [String] {
        var ids: [String] = []
        var time = start
        let codes: [UInt16] = text.map { character in
            let digit = Int(String(character), radix: 16)!
            if digit >= 10 { return [30, 48, 46, 32, 18, 33][digit - 10] }
            if keypad { return [82, 79, 80, 81, 75, 76, 77, 71, 72, 73][digit] }
            return digit == 0 ? 11 : UInt16(1 + digit)
        } + [enter]
        for code in codes {
            for value: Int32 in [1, 0] {
                if let id = decoder.key(code: code, value: value, at: time) { ids.append(id) }
                time += 4 * ms
            }
        }
        return ids
    }

    @Test func digitsThenEnterAreOneCard() {
        var decoder = CardReaderDecoder()
        #expect(Self.type("0001234567", into: &decoder) == ["0001234567"])
        #expect(Self.type("0001234567", into: &decoder, at: 2_000 * Self.ms) == ["0001234567"], "the next read starts afresh")
    }

    @Test func keypadDigitsAndKeypadEnterReadTheSame() {
        var decoder = CardReaderDecoder()
        #expect(Self.type("9876543210", keypad: true, into: &decoder, enter: 96) == ["9876543210"])
    }

    @Test func hexadecimalReadersKeepTheirLetters() {
        var decoder = CardReaderDecoder()
        #expect(Self.type("04A1B2C3D4E5F6", into: &decoder) == ["04A1B2C3D4E5F6"])
    }

    @Test func autorepeatAddsNothing() {
        var decoder = CardReaderDecoder()
        #expect(decoder.key(code: 2, value: 1, at: 0) == nil)
        for step in 1...10 { #expect(decoder.key(code: 2, value: 2, at: UInt64(step) * 33 * Self.ms) == nil) }
        #expect(decoder.key(code: 2, value: 0, at: 400 * Self.ms) == nil)
        #expect(decoder.key(code: 28, value: 1, at: 410 * Self.ms) == "1")
    }

    @Test func aPauseForgetsAHalfTypedId() {
        var decoder = CardReaderDecoder(gap: 1_000 * Self.ms)
        _ = decoder.key(code: 2, value: 1, at: 0)
        _ = decoder.key(code: 3, value: 1, at: 10 * Self.ms)
        // 1.5 s later: what was typed is noise; the id is what follows.
        _ = decoder.key(code: 4, value: 1, at: 1_510 * Self.ms)
        #expect(decoder.key(code: 28, value: 1, at: 1_520 * Self.ms) == "3")
    }

    @Test func enterAloneOtherKeysAndTooLongIdsGiveNothing() {
        var decoder = CardReaderDecoder()
        #expect(decoder.key(code: 28, value: 1, at: 0) == nil)
        #expect(decoder.key(code: 57, value: 1, at: Self.ms) == nil)  // space: not part of an id
        #expect(decoder.key(code: 28, value: 1, at: 2 * Self.ms) == nil)
        let long = String(repeating: "7", count: CardReaderDecoder.maxLength + 1)
        #expect(Self.type(long, into: &decoder, at: 10 * Self.ms).isEmpty)
        let longest = String(repeating: "7", count: CardReaderDecoder.maxLength)
        #expect(Self.type(longest, into: &decoder, at: 2_000 * Self.ms) == [longest])
    }
}
