/// Turns raw file-name bytes into the library's paths. Linux names are bytes; MPD URIs are UTF-8. A name that is
/// valid UTF-8 is kept as is. One that is not is shown with U+FFFD for each bad byte (its `path`), and its real bytes
/// are stored next to it (`Track.pathBytes`) so the file can still be opened; the scan also records an
/// `invalidName` issue for it.
///
/// Stateless; callable from any thread.
enum PathText {
    /// The UTF-8 text of `bytes`, or nil when they are not valid UTF-8.
    static func valid(_ bytes: [UInt8]) -> String? {
        String(validating: bytes, as: UTF8.self)
    }

    /// The display form: exact for valid UTF-8, U+FFFD for bad bytes otherwise.
    static func display(_ bytes: [UInt8]) -> String {
        valid(bytes) ?? String(decoding: bytes, as: UTF8.self)
    }

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
