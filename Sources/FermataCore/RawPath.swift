/// File names as Linux has them — bytes — carried in Swift `String`s without loss, as MPD carries them.
///
/// A name that is valid UTF-8 is its own text. A byte that is not part of valid UTF-8 becomes one scalar of the
/// private-use range U+10FF80…U+10FFFF (byte 0x80 + n → U+10FF80 + n; only bytes ≥ 0x80 can be invalid), and so
/// does each byte of a name's own U+10FF80…U+10FFFF characters, so the mapping is one-to-one: two names that differ
/// only in invalid bytes stay two names (they used to collapse to one U+FFFD form), and `bytes(text(b)) == b` for
/// every byte string. The escapes exist only inside the daemon and its database: the protocol sends and receives the
/// raw bytes (`Response`, the tokenizer), and every system call that takes a path gets the raw bytes
/// (`withCString`).
///
/// Pure functions; callable from any thread.
public enum RawPath {
    static let escapeBase: UInt32 = 0x10FF00
    static let escaped: ClosedRange<UInt32> = 0x10FF80...0x10FFFF

    /// The text for raw name bytes (valid UTF-8 unchanged).
    public static func text<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        // Every escape-range scalar is encoded F4 8F BE/BF xx: without an 0xF4 byte there is none to look for.
        if let valid = String(validating: bytes, as: UTF8.self),
           !valid.utf8.contains(0xF4) || !valid.unicodeScalars.contains(where: isEscape) {
            return valid
        }
        var scalars = String.UnicodeScalarView()
        var index = bytes.startIndex
        while index != bytes.endIndex {
            if let (scalar, length) = decodeOne(bytes, at: index), !isEscape(scalar) {
                scalars.append(scalar)
                index = bytes.index(index, offsetBy: length)
            } else {
                // An invalid byte, or one byte of an escape-range character: escaped on its own.
                let byte = bytes[index]
                scalars.append(Unicode.Scalar(escapeBase + UInt32(byte))!)
                index = bytes.index(after: index)
            }
        }
        return String(scalars)
    }

    /// `text` for bytes in memory, on the fast path of the standard library's UTF-8 decoding (the generic form
    /// validates byte by byte: a tenth of a 10,000-line command list).
    public static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var decoded = String(decoding: bytes, as: UTF8.self)
        // Decoding repairs invalid bytes, so the result is the bytes themselves exactly when they were valid.
        let valid = decoded.withUTF8 { $0.count == bytes.count && $0.elementsEqual(bytes) }
        if valid, !decoded.utf8.contains(0xF4) { return decoded }
        return text(Array(bytes))
    }

    /// The raw bytes a text made by `text` stands for (text without escapes: its UTF-8).
    public static func bytes(_ text: String) -> [UInt8] {
        guard text.utf8.contains(0xF4), text.unicodeScalars.contains(where: isEscape) else { return Array(text.utf8) }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if isEscape(scalar) {
                out.append(UInt8(scalar.value - escapeBase))
            } else {
                out.append(contentsOf: String(scalar).utf8)
            }
        }
        return out
    }

    /// Whether `text` holds escaped bytes (a name that is not valid UTF-8).
    public static func hasEscapes(_ text: String) -> Bool { text.unicodeScalars.contains(where: isEscape) }

    /// Calls `body` with the raw bytes of `path` as a NUL-terminated C string (for `open`, `stat`, `realpath`, …).
    public static func withCString<R, E: Error>(_ path: String, _ body: (UnsafePointer<CChar>) throws(E) -> R) throws(E) -> R {
        var raw = bytes(path).map { CChar(bitPattern: $0) }
        raw.append(0)
        return try raw.withUnsafeBufferPointer { (buffer) throws(E) -> R in try body(buffer.baseAddress!) }
    }

    static func isEscape(_ scalar: Unicode.Scalar) -> Bool { escaped.contains(scalar.value) }

    /// The scalar encoded at `index` and its length in bytes, or nil when the bytes there are not valid UTF-8.
    static func decodeOne<Bytes: Collection<UInt8>>(_ bytes: Bytes, at index: Bytes.Index) -> (Unicode.Scalar, Int)? {
        let first = bytes[index]
        let length: Int
        switch first {
        case 0x00...0x7F: return (Unicode.Scalar(first), 1)
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return nil
        }
        guard bytes.distance(from: index, to: bytes.endIndex) >= length else { return nil }
        let end = bytes.index(index, offsetBy: length)
        guard let decoded = String(validating: bytes[index..<end], as: UTF8.self),
              decoded.unicodeScalars.count == 1 else { return nil }
        return (decoded.unicodeScalars.first!, length)
    }
}
