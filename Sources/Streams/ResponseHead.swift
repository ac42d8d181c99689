/// The head of the HTTP response a stream's body comes with: the status and the few fields a player reads.
public struct ResponseHead: Sendable, Equatable {
    public var status: Int
    /// `Content-Type` without parameters, lower-cased ("audio/mpeg").
    public var contentType: String?
    /// `icy-metaint`: audio bytes between two ICY metadata blocks (nil: the server inserts none).
    public var icyMetaInterval: Int?
    /// `icy-name`: the station's name, cleaned for display.
    public var icyName: String?
    /// `Content-Encoding` other than identity (an encoded body is not audio a decoder can read).
    public var contentEncoding: String?
    /// `Content-Length`: a finite body (a file on a web server); a live stream has none.
    public var contentLength: Int64?
}

/// Reads a response's header lines as libcurl hands them over, one at a time (every response of a redirect chain in
/// turn), keeping only what a stream needs and refusing what no radio sends: a line longer than `maxLineBytes`,
/// more than `maxFields` fields or `maxBytes` in all (a hostile server's endless headers cost at most that).
///
/// A value owned by one `HTTPConnection`, on its stream's thread.
struct ResponseHeadReader {
    static let maxLineBytes = 8192
    static let maxFields = 200
    static let maxBytes = 65_536
    /// The largest `icy-metaint` taken (servers use 8,192 to 65,536).
    static let maxMetaInterval = 1 << 20

    private var head = ResponseHead(status: 0)
    private var fields = 0
    private var bytes = 0
    /// The head of the last response, once its blank line has been read.
    private(set) var complete: ResponseHead?

    /// One header line (with its line break). Throws when a bound is passed or a field cannot be used.
    mutating func take(_ line: UnsafeRawBufferPointer) throws(StreamError) {
        bytes += line.count
        guard line.count <= Self.maxLineBytes else { throw .refused("the server sent a header line over 8 KiB") }
        guard bytes <= Self.maxBytes else { throw .refused("the server sent over 64 KiB of headers") }
        let text = NetworkText.decode(line).trimmingLineEnd()
        if text.hasPrefix("HTTP/") || text.hasPrefix("ICY ") {
            // A new response (the next of a redirect chain): its own fields only.
            head = ResponseHead(status: Self.status(of: text))
            fields = 0
            complete = nil
            return
        }
        if text.isEmpty {
            complete = head
            return
        }
        fields += 1
        guard fields <= Self.maxFields else { throw .refused("the server sent over \(Self.maxFields) header fields") }
        guard let colon = text.firstIndex(of: ":") else { return }
        let name = text[..<colon].lowercased()
        let value = String(text[text.index(after: colon)...]).trimmingSpaces()
        switch name {
        case "content-type":
            let type = value.split(separator: ";", maxSplits: 1).first.map { String($0).trimmingSpaces().lowercased() }
            head.contentType = type.map { NetworkText.clean($0, limit: 128) }
        case "icy-metaint":
            guard let interval = Int(value), interval >= 0, interval <= Self.maxMetaInterval else {
                throw .refused("the server's icy-metaint \"\(NetworkText.clean(value, limit: 32))\" is not a byte count "
                               + "from 0 to \(Self.maxMetaInterval)")
            }
            head.icyMetaInterval = interval == 0 ? nil : interval
        case "icy-name":
            let name = NetworkText.clean(value, limit: 256)
            head.icyName = name.isEmpty ? nil : name
        case "content-length":
            head.contentLength = Int64(value).flatMap { $0 >= 0 ? $0 : nil }
        case "content-encoding":
            let encoding = value.lowercased()
            head.contentEncoding = encoding == "identity" || encoding.isEmpty ? nil : NetworkText.clean(encoding, limit: 32)
        default:
            break
        }
    }

    private static func status(of line: String) -> Int {
        let words = line.split(separator: " ", maxSplits: 2)
        guard words.count >= 2, let code = Int(words[1]), (100...999).contains(code) else { return 0 }
        return code
    }
}

extension String {
    func trimmingLineEnd() -> String {
        var text = Substring(self)
        while let last = text.last, last == "\r\n" || last == "\n" || last == "\r" { text = text.dropLast() }
        return String(text)
    }
}
