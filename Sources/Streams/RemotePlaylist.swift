/// A playlist fetched from the web that names streams (a radio station's `.m3u`, `.m3u8`, `.pls` or `.xspf`): parsed
/// within `maxBytes`, its http(s) entries in order. HLS media playlists (`#EXT-X-TARGETDURATION`, segments) are told
/// apart and refused by name: they are not a list of streams.
///
/// Pure values; any thread.
public enum RemotePlaylist {
    /// The most of a playlist read: a station's list is a few hundred bytes; a 1 GB "playlist" costs only this.
    static let maxBytes = 65_536
    /// The most entries taken from one list, and how deep lists may name lists.
    static let maxEntries = 64
    static let maxDepth = 3

    enum Kind: Equatable {
        case m3u, pls, xspf

        /// The kind a `Content-Type` or the first bytes say (nil: not a playlist).
        init?(contentType: String?, head: [UInt8]) {
            switch contentType {
            case "audio/x-mpegurl", "audio/mpegurl", "application/x-mpegurl", "application/vnd.apple.mpegurl",
                 "audio/m3u":
                self = .m3u
                return
            case "audio/x-scpls", "application/pls+xml": self = .pls
                return
            case "application/xspf+xml": self = .xspf
                return
            default: break
            }
            let start = String(decoding: head.prefix(512), as: UTF8.self)
                .drop { $0 == "\u{FEFF}" || $0.isWhitespace }
            if start.hasPrefix("#EXTM3U") { self = .m3u } else if start.lowercased().hasPrefix("[playlist]") {
                self = .pls
            } else if start.hasPrefix("<?xml") || start.hasPrefix("<playlist"), start.contains("xspf") {
                self = .xspf
            } else if contentType == "text/plain" || contentType == "audio/x-mpegurl", start.hasPrefix("http") {
                self = .m3u
            } else {
                return nil
            }
        }
    }

    /// The http(s) URLs `text` names, in order (at most `maxEntries`); throws for HLS and for a list with none.
    static func entries(_ text: String, kind: Kind) throws(StreamError) -> [String] {
        var urls: [String] = []
        switch kind {
        case .m3u:
            if text.contains("#EXT-X-TARGETDURATION") || text.contains("#EXT-X-STREAM-INF") {
                throw .content("an HLS playlist (segmented streaming), which Fermata does not play")
            }
            for line in text.split(whereSeparator: \.isNewline) {
                let entry = String(line).trimmingSpaces()
                if entry.isEmpty || entry.hasPrefix("#") { continue }
                urls.append(entry)
            }
        case .pls:
            for line in text.split(whereSeparator: \.isNewline) {
                let entry = String(line).trimmingSpaces()
                guard entry.lowercased().hasPrefix("file"), let equals = entry.firstIndex(of: "=") else { continue }
                urls.append(String(entry[entry.index(after: equals)...]).trimmingSpaces())
            }
        case .xspf:
            var rest = Substring(text)
            while let open = rest.firstRange(of: "<location>"), let close = rest[open.upperBound...].firstRange(of: "</location>") {
                urls.append(unescapeXML(String(rest[open.upperBound..<close.lowerBound]).trimmingSpaces()))
                rest = rest[close.upperBound...]
            }
        }
        let streams = urls.filter { StreamURL.isStream($0) }.prefix(maxEntries)
        guard !streams.isEmpty else { throw .content("a playlist that names no http or https stream") }
        return Array(streams)
    }

    private static func unescapeXML(_ text: String) -> String {
        text.replacingAll("&lt;", "<").replacingAll("&gt;", ">").replacingAll("&quot;", "\"")
            .replacingAll("&apos;", "'").replacingAll("&amp;", "&")
    }
}

/// The URLs Fermata streams from: `http://` and `https://`, at most 2,048 bytes, no spaces or control characters.
///
/// Pure; any thread.
public enum StreamURL {
    public static let maxLength = 2048
    /// The schemes MPD clients see in `urlhandlers`.
    public static let schemes = ["http://", "https://"]

    /// Whether `text` names a stream (by syntax only; nothing is fetched).
    public static func isStream(_ text: String) -> Bool {
        let lower = text.prefix(8).lowercased()
        guard schemes.contains(where: { lower.hasPrefix($0) }), text.utf8.count <= maxLength,
              text.utf8.count > (lower.hasPrefix("https") ? 8 : 7) else { return false }
        return !text.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F }
    }
}

extension String {
    func replacingAll(_ target: String, _ replacement: String) -> String {
        guard !target.isEmpty, contains(target) else { return self }
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
