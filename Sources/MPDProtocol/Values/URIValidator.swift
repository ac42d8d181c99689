/// Syntactic safety of song and directory URIs received from clients, before any backend sees them.
///
/// A URI is safe when it is relative, `/`-separated, and has no empty, `.` or `..` component and no NUL byte.
/// Symlinks that leave the music directory can only be caught on the file system: see `MusicPathGuard`.
/// Pure; callable from any thread.
public enum URIValidator {
    /// Whether `uri` names something inside the music directory by syntax alone (`""` is the root).
    public static func isSafe(_ uri: String) -> Bool {
        if uri.isEmpty { return true }
        if uri.hasPrefix("/") || uri.utf8.contains(0) { return false }
        var path = Substring(uri)
        if path.hasSuffix("/") { path = path.dropLast() }
        return !path.split(separator: "/", omittingEmptySubsequences: false).contains {
            $0.isEmpty || $0 == "." || $0 == ".."
        }
    }

    /// The URI scheme (`http` of `http://host/x`), or nil for a library path.
    public static func scheme(of uri: String) -> String? {
        guard let range = uri.firstRange(of: "://") else { return nil }
        let scheme = uri[..<range.lowerBound]
        guard let first = scheme.first, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return scheme.lowercased()
    }

    /// Checks a library URI from a client: absolute paths are `ACK_ERROR_PERMISSION` ("Access denied"), URLs with a
    /// scheme the backend does not handle are `ACK_ERROR_NO_EXIST`, and a URI with an empty, `.` or `..` component
    /// gets `unsafe`: what MPD answers for it, since MPD looks such a name up in its database and does not find it
    /// (`lsinfo ../` and `add ../x` are `No such directory`, `addid` `No such song`; see `CommandContext.uri`).
    /// `"/"` alone is accepted as the root, as in MPD's `add /`.
    /// - Returns: the URI to hand to the backend (`""` for the root).
    public static func checked(
        _ uri: String, handlers: [String], unsafe: MPDError = .notFound("No such directory")
    ) throws(MPDError) -> String {
        if uri == "/" { return "" }
        if let scheme = scheme(of: uri) {
            guard handlers.contains(where: { $0.lowercased().hasPrefix(scheme + "://") }) else {
                throw MPDError(.noExist, "Unsupported URI scheme")
            }
            return uri
        }
        if uri.hasPrefix("/") { throw MPDError(.permission, "Access denied") }
        guard isSafe(uri) else { throw unsafe }
        return uri.hasSuffix("/") ? String(uri.dropLast()) : uri
    }
}
