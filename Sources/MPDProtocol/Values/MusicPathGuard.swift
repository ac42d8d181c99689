#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Resolves library URIs to real file-system paths and refuses any that end outside the music directory, following
/// symlinks (`realpath`), so a link such as `music/evil -> /etc` cannot be used to read `/etc/passwd`.
///
/// For `MPDBackend` implementations; immutable, callable from any thread (it does blocking file-system calls, so keep
/// it off event loops).
public struct MusicPathGuard: Sendable {
    /// The music directory, resolved.
    public let root: String

    /// - Throws: when `musicDirectory` does not exist.
    public init(musicDirectory: String) throws(MPDError) {
        guard let resolved = Self.realPath(musicDirectory) else {
            throw MPDError(.system, "music directory not found: \(musicDirectory)")
        }
        root = resolved
    }

    /// The real path of `uri` (which must pass `URIValidator`), or an ACK: `Malformed URI` / `Access denied` for
    /// unsafe syntax or a resolved path outside the root, `No such file or directory` when it does not exist.
    public func resolve(_ uri: String) throws(MPDError) -> String {
        guard URIValidator.isSafe(uri) else {
            throw uri.hasPrefix("/") ? MPDError(.permission, "Access denied") : MPDError(.argument, "Malformed URI")
        }
        let joined = uri.isEmpty ? root : root + "/" + uri
        guard let real = Self.realPath(joined) else { throw MPDError(.noExist, "No such file or directory") }
        guard real == root || real.hasPrefix(root == "/" ? "/" : root + "/") else {
            throw MPDError(.permission, "Access denied")
        }
        return real
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
