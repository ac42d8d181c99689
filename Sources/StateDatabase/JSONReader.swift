/// A cursor over JSON text for the hand-written readers of the state database (`QueueSegmentCodec`): tokens as the
/// writer puts them, whitespace allowed between them (a hand-edited row may have some). Every failure is
/// `QueueSegmentCodec.Malformed` with the byte offset.
///
/// A value over borrowed bytes; one owner, for the duration of `withUTF8`.
struct JSONReader {
    typealias Malformed = QueueSegmentCodec.Malformed

    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    var malformed: Malformed { Malformed(offset: index) }

    mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0a, 0x0d: index += 1
            default: return
            }
        }
    }

    mutating func take(_ byte: UInt8) throws(Malformed) -> Bool {
        skipSpace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    mutating func expect(_ byte: UInt8) throws(Malformed) {
        guard try take(byte) else { throw malformed }
    }

    mutating func end() throws(Malformed) {
        skipSpace()
        guard index == bytes.count else { throw malformed }
    }

    /// An object: `member` is called with each name, the cursor at its value, which it must read.
    mutating func object(_ member: (inout JSONReader, String) throws(Malformed) -> Void) throws(Malformed) {
        try expect(UInt8(ascii: "{"))
        if try take(UInt8(ascii: "}")) { return }
        repeat {
            let name = try string()
            try expect(UInt8(ascii: ":"))
            try member(&self, name)
        } while try take(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"))
    }

    /// The bytes of a number token.
    mutating func token() -> String {
        skipSpace()
        let start = index
        scan: while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "e"), UInt8(ascii: "E"): index += 1
            default: break scan
            }
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    mutating func integer() throws(Malformed) -> Int64 {
        guard let value = Int64(token()) else { throw malformed }
        return value
    }

    /// A finite number (`null` here is malformed: the writer leaves a missing value out).
    mutating func number() throws(Malformed) -> Double {
        guard let value = Double(token()), value.isFinite else { throw malformed }
        return value
    }

    mutating func string() throws(Malformed) -> String {
        try expect(UInt8(ascii: "\""))
        // Most names have no escape: taken straight from the text (a restart reads 10,000 of them).
        var end = index
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\") { end += 1 }
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            defer { index = end + 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self)
        }
        var out: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw malformed }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escaped)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0c)
                case UInt8(ascii: "n"): out.append(0x0a)
                case UInt8(ascii: "r"): out.append(0x0d)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xd800..<0xdc00).contains(scalar) {
                        // A surrogate pair, as another JSON writer may have put a non-BMP character.
                        guard try take(UInt8(ascii: "\\")), try take(UInt8(ascii: "u")) else { throw malformed }
                        let low = try hex4()
                        guard (0xdc00..<0xe000).contains(low) else { throw malformed }
                        scalar = 0x10000 + ((scalar - 0xd800) << 10) + (low - 0xdc00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw malformed }
                    out.append(contentsOf: String(Character(unicode)).utf8)
                default: throw malformed
                }
            default:
                out.append(byte)
            }
        }
        throw malformed
    }

    mutating func hex4() throws(Malformed) -> UInt32 {
        guard bytes.count - index >= 4,
              let value = UInt32(String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<index + 4]), as: UTF8.self),
                                 radix: 16) else { throw malformed }
        index += 4
        return value
    }
}
