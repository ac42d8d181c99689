/// The body of one command's answer: `key: value` lines and binary chunks, accumulated as bytes.
///
/// A value owned by one handler invocation (not shared). The terminating `OK`/`list_OK`/`ACK` line is added by
/// `CommandExecutor`, never by handlers.
public struct Response: Sendable, Hashable {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    /// Whether nothing has been written.
    public var isEmpty: Bool { bytes.isEmpty }

    /// Appends `key: value\n`; line breaks in `value` become spaces.
    public mutating func line(_ key: String, _ value: String) {
        bytes.append(contentsOf: key.utf8)
        bytes.append(contentsOf: ": ".utf8)
        bytes.append(contentsOf: ResponseText.sanitized(value).utf8)
        bytes.append(0x0A)
    }

    public mutating func line(_ key: String, _ value: some BinaryInteger) { line(key, String(value)) }

    /// Appends `key: 0|1`.
    public mutating func line(_ key: String, flag: Bool) { line(key, flag ? "1" : "0") }

    /// Appends `key: N.NNN` (three decimals, as MPD prints `elapsed` and `duration`).
    public mutating func line(_ key: String, seconds: Double) { line(key, ResponseText.fixed3(seconds)) }

    /// Appends a binary chunk: `binary: N\n`, the bytes, then `\n`.
    public mutating func binary(_ chunk: some Collection<UInt8>) {
        line("binary", chunk.count)
        bytes.append(contentsOf: chunk)
        bytes.append(0x0A)
    }

    /// Appends another response's bytes.
    public mutating func append(_ other: Response) { bytes.append(contentsOf: other.bytes) }

    /// Appends raw text exactly as given (used for terminators; handlers should prefer `line`).
    mutating func appendRaw(_ text: String) { bytes.append(contentsOf: text.utf8) }
}

extension Response: CustomStringConvertible {
    /// The bytes as UTF-8 text (invalid sequences repaired), for tests and logs.
    public var description: String { String(decoding: bytes, as: UTF8.self) }
}
