import FermataCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Resolves library URIs to real file-system paths and refuses any that end outside the music directory, following
/// symlinks (`realpath`), so a link such as `music/evil -> /etc` cannot be used to read `/etc/passwd`.
///
/// The music directory itself is resolved at each call, not once: it may be missing when the daemon starts (a USB drive
/// or network share mounted late) and appear later, and the guard then follows it without a restart.
///
/// For `MPDBackend` implementations; immutable, callable from any thread (it does blocking file-system calls, so keep
/// it off event loops and the cooperative pool).
public struct MusicPathGuard: Sendable {
    /// The music directory as configured.
    public let musicDirectory: String

    public init(musicDirectory: String) {
        self.musicDirectory = musicDirectory
    }

    /// The music directory, resolved; nil while it does not exist.
    public var root: String? { Self.realPath(musicDirectory) }

    /// The real path of `uri` (which must pass `URIValidator`), or an ACK: `Malformed URI` / `Access denied` for
    /// unsafe syntax or a resolved path outside the root, `No such directory` when it (or the music directory) does
    /// not exist: MPD's answer for a name its database does not hold (`add nosuch/file.flac`).
    public func resolve(_ uri: String) throws(MPDError) -> String {
        guard URIValidator.isSafe(uri) else {
            throw uri.hasPrefix("/") ? MPDError(.permission, "Access denied") : MPDError(.argument, "Malformed URI")
        }
        guard let root else { throw MPDError(.noExist, "No such directory") }
        let joined = uri.isEmpty ? root : root + "/" + uri
        guard let real = Self.realPath(joined) else { throw MPDError(.noExist, "No such directory") }
        guard real == root || real.hasPrefix(root == "/" ? "/" : root + "/") else {
            throw MPDError(.permission, "Access denied")
        }
        return real
    }

    /// `realpath(3)` of the raw bytes `path` stands for (`RawPath`), as `RawPath` text.
    static func realPath(_ path: String) -> String? {
        guard let resolved = RawPath.withCString(path, { realpath($0, nil) }) else { return nil }
        defer { free(resolved) }
        return RawPath.text(UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)))
    }
}
