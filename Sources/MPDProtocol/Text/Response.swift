import FermataCore

/// The body of one command's answer: `key: value` lines and binary chunks, accumulated as bytes, up to a cap.
///
/// The cap is what the client may still be sent (MPD's `max_output_buffer_size` less what is already pending): once
/// `bytes` reach it the response `isFull` and every further write is dropped, so a handler never accumulates more than
/// the cap plus the one line (or binary chunk) that crossed it. Loops printing many entries check `isFull` and stop;
/// `CommandExecutor` then drops the client, as MPD does when its output buffer is full.
/// A value owned by one handler invocation (not shared). The terminating `OK`/`list_OK`/`ACK` line is added by
/// `CommandExecutor`, never by handlers.
public struct Response: Sendable, Hashable {
    public private(set) var bytes: [UInt8] = []
    /// The most bytes this response may hold; writes once it is reached are dropped.
    public let limit: Int

    public init(limit: Int = .max) { self.limit = limit }

    /// Whether nothing has been written.
    public var isEmpty: Bool { bytes.isEmpty }

    /// Whether the cap is reached: further writes are dropped and the client will be disconnected.
    public var isFull: Bool { bytes.count >= limit }

    /// Appends `key: value\n`; line breaks in `value` become spaces. A `file:` or `directory:` value is a `RawPath`
    /// and goes out as the name's raw bytes, as MPD sends them (a name need not be UTF-8).
    public mutating func line(_ key: String, _ value: String) {
        guard !isFull else { return }
        append(key)
        bytes.append(0x3A)
        bytes.append(0x20)
        // The common case, a value with no line break and no escaped byte, is copied as it is.
        let plain = !value.utf8.contains { $0 == 0x0A || $0 == 0x0D || $0 == 0xF4 }
        if plain {
            append(value)
        } else if key == "file" || key == "directory" {
            bytes.append(contentsOf: RawPath.bytes(ResponseText.sanitized(value)))
        } else {
            append(ResponseText.sanitized(value))
        }
        bytes.append(0x0A)
    }

    /// Appends `key: ` and a Unix time in ISO 8601 (`2024-05-01T12:00:00Z`), as MPD prints `Last-Modified`.
    public mutating func line(_ key: String, iso8601 unixTime: Int64) {
        guard !isFull else { return }
        append(key)
        bytes.append(0x3A)
        bytes.append(0x20)
        ResponseText.appendISO8601(unixTime, to: &bytes)
        bytes.append(0x0A)
    }

    private mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    public mutating func line(_ key: String, _ value: some BinaryInteger) { line(key, String(value)) }

    /// Appends `key: 0|1`.
    public mutating func line(_ key: String, flag: Bool) { line(key, flag ? "1" : "0") }

    /// Appends `key: N.NNN` (three decimals, as MPD prints `elapsed` and `duration`).
    public mutating func line(_ key: String, seconds: Double) { line(key, ResponseText.fixed3(seconds)) }

    /// Appends a binary chunk: `binary: N\n`, the bytes, then `\n`.
    public mutating func binary(_ chunk: some Collection<UInt8>) {
        guard !isFull else { return }
        line("binary", chunk.count)
        bytes.append(contentsOf: chunk)
        bytes.append(0x0A)
    }

    /// Appends bytes rendered earlier (`ListingCache`), cut at the cap: past it the client is dropped unanswered.
    public mutating func append(bytes other: [UInt8]) {
        guard !isFull else { return }
        let room = limit - bytes.count
        if other.count <= room { bytes.append(contentsOf: other) } else { bytes.append(contentsOf: other[..<room]) }
    }

    /// Appends another response's bytes.
    public mutating func append(_ other: Response) {
        guard !isFull else { return }
        bytes.append(contentsOf: other.bytes)
    }
}

extension Response: CustomStringConvertible {
    /// The bytes as UTF-8 text (invalid sequences repaired), for tests and logs.
    public var description: String { String(decoding: bytes, as: UTF8.self) }
}
