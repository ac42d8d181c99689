/// Turns a card reader's key stream into card ids. A USB RFID reader (and a barcode scanner) is a keyboard: it types
/// the card's number, digit by digit, then Enter. Digits from the top row (`KEY_1`…`KEY_0`) and from the keypad
/// (`KEY_KP0`…`KEY_KP9`, whatever NumLock says: the kernel's codes do not change with it) and hexadecimal letters
/// `A`–`F` (readers that print the UID in hex) are collected; `KEY_ENTER` or `KEY_KPENTER` ends the id. Only presses
/// count (value 1): the kernel's autorepeat (2) of a key held too long adds nothing. A pause of `gap` between two
/// keys starts over (a half-typed id is noise, not a card), and an id longer than `maxLength` is dropped whole.
/// Commands in (`key`), the id out; time is an input. A value type; owned by one thread (the controls thread) or a
/// test.
public struct CardReaderDecoder: Sendable, Equatable {
    /// The longest id kept (a 10-digit decimal UID is common; 7-byte UIDs in hex are 14).
    public static let maxLength = 32

    /// Nanoseconds between two keys after which what was typed is forgotten.
    public let gap: UInt64
    /// The characters typed since the last Enter.
    private(set) var typed: [UInt8] = []
    private var overflowed = false
    private var lastKey: UInt64?

    public init(gap: UInt64 = 1_000_000_000) {
        self.gap = max(1, gap)
    }

    /// One `EV_KEY` event; answers the card id when this was the Enter that ends one.
    public mutating func key(code: UInt16, value: Int32, at time: UInt64) -> String? {
        guard value == 1 else { return nil }
        if let last = lastKey, time > last, time - last > gap { reset() }
        lastKey = time
        if code == Self.enter || code == Self.keypadEnter {
            defer { reset() }
            guard !typed.isEmpty, !overflowed else { return nil }
            return String(decoding: typed, as: UTF8.self)
        }
        guard let character = Self.character(code) else { return nil }
        if typed.count >= Self.maxLength { overflowed = true } else { typed.append(character) }
        return nil
    }

    private mutating func reset() {
        typed.removeAll(keepingCapacity: true)
        overflowed = false
    }

    static let enter: UInt16 = 28, keypadEnter: UInt16 = 96

    /// The character a key types on a card reader: digits (top row and keypad) and the letters A–F.
    static func character(_ code: UInt16) -> UInt8? {
        switch code {
        case 2...10: UInt8(ascii: "1") + UInt8(code - 2)
        case 11, 82: UInt8(ascii: "0")
        case 71...73: UInt8(ascii: "7") + UInt8(code - 71)
        case 75...77: UInt8(ascii: "4") + UInt8(code - 75)
        case 79...81: UInt8(ascii: "1") + UInt8(code - 79)
        case 30: UInt8(ascii: "A")
        case 48: UInt8(ascii: "B")
        case 46: UInt8(ascii: "C")
        case 32: UInt8(ascii: "D")
        case 18: UInt8(ascii: "E")
        case 33: UInt8(ascii: "F")
        default: nil
        }
    }
}
