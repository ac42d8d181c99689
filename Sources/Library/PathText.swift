import FermataCore

/// Turns raw file-name bytes into the library's paths. Linux names are bytes; MPD URIs are UTF-8. A name that is
/// valid UTF-8 is kept as is. One that is not keeps its bytes through `RawPath`'s one-to-one escapes (its `path`), so
/// two names differing only in bad bytes stay two tracks, the protocol shows and takes the raw bytes as MPD does, and
/// the file opens by its real name; its bytes are also stored next to it (`Track.pathBytes`) and the scan records an
/// `invalidName` issue (a name some clients cannot show).
///
/// Stateless; callable from any thread.
enum PathText {
    /// The UTF-8 text of `bytes`, or nil when they are not valid UTF-8.
    static func valid(_ bytes: [UInt8]) -> String? {
        let text = RawPath.text(bytes)
        return RawPath.hasEscapes(text) ? nil : text
    }

    /// The library's text for a name: exact for valid UTF-8, `RawPath`'s escapes for bad bytes otherwise.
    static func display(_ bytes: [UInt8]) -> String { RawPath.text(bytes) }

    /// The directory part of a relative path (bytes before the last '/'), empty at the top.
    static func directory(of path: [UInt8]) -> ArraySlice<UInt8> {
        guard let slash = path.lastIndex(of: UInt8(ascii: "/")) else { return [] }
        return path[..<slash]
    }

    /// The last component of a '/'-separated path.
    static func fileName(_ path: String) -> Substring {
        guard let slash = path.lastIndex(of: "/") else { return Substring(path) }
        return path[path.index(after: slash)...]
    }

    /// Whether `path` is `prefix` itself or lies below it ("" contains everything).
    static func isWithin(_ path: String, _ prefix: String) -> Bool {
        prefix.isEmpty || path == prefix || (path.hasPrefix(prefix) && path.utf8.dropFirst(prefix.utf8.count).first
            == UInt8(ascii: "/"))
    }
}
