/// Why a network stream stopped or could not start. The case says whether trying again can help: a `network` failure
/// of a stream that was playing is retried (a bounded number of times, with back-off); the others end it at once.
public enum StreamError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server or the address refuses it for good: a bad URL, an HTTP error status, a redirect loop, a redirect
    /// to another scheme, too large or malformed headers.
    case refused(String)
    /// The connection failed or went away: no answer, DNS, TLS, a reset, a server that stopped sending.
    case network(String)
    /// What arrived is not audio Fermata plays, or is damaged beyond a decoder's resynchronisation.
    case content(String)
    /// The stream was closed by its owner (stop, skip); nothing to report.
    case cancelled

    public var description: String {
        switch self {
        case let .refused(why), let .network(why), let .content(why): why
        case .cancelled: "closed"
        }
    }

    /// Whether a stream that was playing should reconnect after this.
    var isRetryable: Bool {
        if case .network = self { return true }
        return false
    }
}

/// Text from the network made safe to show and to send in an MPD answer: control characters (a line break would
/// start another line of the answer) become spaces, and it is cut at `limit` characters.
enum NetworkText {
    static func clean(_ text: String, limit: Int = 512) -> String {
        var out = String.UnicodeScalarView()
        var count = 0
        for scalar in text.unicodeScalars {
            guard count < limit else { break }
            let isControl = scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
                || scalar == "\u{2028}" || scalar == "\u{2029}"
            out.append(isControl ? " " : scalar)
            count += 1
        }
        return String(out).trimmingSpaces()
    }

    /// Bytes as UTF-8 when they are valid UTF-8, else as ISO-8859-1 (what older SHOUTcast servers send).
    static func decode(_ bytes: some Collection<UInt8>) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }
}

extension String {
    func trimmingSpaces() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " }) else { return "" }
        let last = scalars.lastIndex(where: { $0 != " " })!
        return String(scalars[first...last])
    }
}

/// Bytes allocated once and freed with their owner: a reader's scratch space (a closure over an Array's bytes loses
/// the typed error of what it calls).
///
/// Threads: its owner's.
final class ScratchBytes {
    let bytes: UnsafeMutableRawBufferPointer

    init(count: Int) {
        bytes = .allocate(byteCount: max(1, count), alignment: 16)
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit { bytes.deallocate() }

    var count: Int { bytes.count }

    /// The first `count` bytes.
    func prefix(_ count: Int) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: bytes[0..<count]) }
}
