import FermataCore

/// Splits one protocol line into a command name and arguments with MPD's quoting rules.
///
/// The name is a bare word (an ASCII letter, then letters, digits or `_`). Arguments are bare words (any byte above
/// 0x20 except `"` and `'`) or `"double quoted"` strings in which a backslash escapes the next byte. Tokens are
/// separated by ASCII whitespace. Pure; callable from any thread.
public struct CommandLineTokenizer: Sendable {
    /// Why a line could not be split; `message` is MPD's wording.
    public struct Failure: Error, Sendable, Hashable {
        public var message: String
        /// True when the command name itself is malformed: MPD answers and then drops the connection.
        public var inCommandName: Bool

        public init(message: String, inCommandName: Bool) {
            self.message = message
            self.inCommandName = inCommandName
        }
    }

    /// A tokenized line.
    public struct Tokens: Sendable, Hashable {
        public var name: String
        public var arguments: [String]
    }

    /// At most this many arguments are accepted (MPD allows about twice the number of tag types).
    public static let maxArguments = 128

    /// Splits `line` (without its newline); nil for an empty line.
    public static func tokenize(_ line: some Collection<UInt8>) throws(Failure) -> Tokens? {
        var scanner = ByteScanner(Array(line))
        guard !scanner.atEnd else { return nil }
        let name = try scanner.word()
        var arguments: [String] = []
        while !scanner.atEnd {
            guard arguments.count < maxArguments else {
                throw Failure(message: "Too many arguments", inCommandName: false)
            }
            arguments.append(try scanner.parameter())
        }
        return Tokens(name: name, arguments: arguments)
    }
}

/// A cursor over the bytes of one line; private to the tokenizer.
private struct ByteScanner {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index >= bytes.count }

    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }
    static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    static func isUnquoted(_ byte: UInt8) -> Bool { byte > 0x20 && byte != 0x22 && byte != 0x27 }

    mutating func skipSpaces() {
        while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
    }

    /// The command name.
    mutating func word() throws(CommandLineTokenizer.Failure) -> String {
        guard Self.isLetter(bytes[index]) else { throw .init(message: "Letter expected", inCommandName: true) }
        let start = index
        index += 1
        while index < bytes.count, !Self.isSpace(bytes[index]) {
            let byte = bytes[index]
            guard Self.isLetter(byte) || Self.isDigit(byte) || byte == 0x5F else {
                throw .init(message: "Invalid word character", inCommandName: true)
            }
            index += 1
        }
        let word = String(decoding: bytes[start..<index], as: UTF8.self)
        skipSpaces()
        return word
    }

    /// One argument, quoted or bare.
    mutating func parameter() throws(CommandLineTokenizer.Failure) -> String {
        bytes[index] == 0x22 ? try quoted() : try unquoted()
    }

    private mutating func unquoted() throws(CommandLineTokenizer.Failure) -> String {
        let start = index
        while index < bytes.count, !Self.isSpace(bytes[index]) {
            guard Self.isUnquoted(bytes[index]) else {
                throw .init(message: "Invalid unquoted character", inCommandName: false)
            }
            index += 1
        }
        // Arguments keep their bytes (a file name need not be UTF-8): `RawPath`'s one-to-one text.
        let value = bytes.withUnsafeBufferPointer { RawPath.text(UnsafeBufferPointer(rebasing: $0[start..<index])) }
        skipSpaces()
        return value
    }

    private mutating func quoted() throws(CommandLineTokenizer.Failure) -> String {
        index += 1
        let value = try quotedText()
        index += 1
        guard atEnd || Self.isSpace(bytes[index]) else {
            throw .init(message: "Space expected after closing '\"'", inCommandName: false)
        }
        skipSpaces()
        return value
    }

    /// The text between the quotes, escapes undone; leaves `index` on the closing quote.
    private mutating func quotedText() throws(CommandLineTokenizer.Failure) -> String {
        // Most quoted arguments have no backslash: their bytes are taken as they are, without a copy byte by byte.
        let start = index
        while index < bytes.count, bytes[index] != 0x22, bytes[index] != 0x5C { index += 1 }
        if index < bytes.count, bytes[index] == 0x22 {
            return bytes.withUnsafeBufferPointer { RawPath.text(UnsafeBufferPointer(rebasing: $0[start..<index])) }
        }
        index = start
        var value: [UInt8] = []
        while true {
            guard index < bytes.count else { throw .init(message: "Missing closing '\"'", inCommandName: false) }
            var byte = bytes[index]
            if byte == 0x22 { return RawPath.text(value) }
            if byte == 0x5C {
                index += 1
                guard index < bytes.count else { throw .init(message: "Missing closing '\"'", inCommandName: false) }
                byte = bytes[index]
            }
            value.append(byte)
            index += 1
        }
    }
}
