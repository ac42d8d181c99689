import GRDB

/// Something a scan could not take as it found it: a file it rejected (with the reason), a file it indexed after
/// repairing its name or tags, or a part of the tree it did not enter. Stored in `scan_issue`, listed by
/// `Library.issues()`, counted in `ScanSummary`.
///
/// A value type; safe to pass anywhere.
public struct ScanIssue: Sendable, Hashable {
    /// What went wrong.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The file exists but cannot be opened or read (permissions, I/O error).
        case unreadable
        /// Content Fermata does not play (a text file named `.flac`, a WMA, a DRM-protected `.m4p`), or an M4A while
        /// FFmpeg is not installed; the reason says which.
        case unsupported
        /// The content starts as a known format but its headers are damaged.
        case corrupt
        /// A 0-byte file (judged without opening it).
        case empty
        /// The file disappeared between the directory listing and the read.
        case vanished
        /// The file's name is not valid UTF-8: indexed with U+FFFD in `path`, the real bytes kept in `pathBytes`.
        case invalidName
        /// Some tag text was not valid UTF-8: indexed with the bad bytes replaced by U+FFFD.
        case invalidTagText
        /// Two names differ only in their invalid bytes and would share one path: the second is not indexed.
        case nameCollision
        /// A directory that cannot be listed; the tracks already known under it are kept.
        case unreadableDirectory
        /// A symbolic link whose target is missing.
        case brokenSymlink
        /// A symbolic link leading outside the music directory (not followed).
        case outsideRoot
        /// A symbolic link back to a directory that contains it (not followed).
        case symlinkLoop
        /// Directories nested deeper than the scanner goes.
        case tooDeep

        /// Whether a file of this kind is in the library all the same.
        public var isIndexed: Bool { self == .invalidName || self == .invalidTagText }
    }

    /// Path relative to the music directory (U+FFFD for bytes of a name that are not UTF-8).
    public var path: String
    public var kind: Kind
    /// Human-readable explanation (e.g. the decoder's or the system's message).
    public var reason: String

    public init(path: String, kind: Kind, reason: String) {
        self.path = path
        self.kind = kind
        self.reason = reason
    }

    /// Whether the file is in the library despite the issue.
    public var isIndexed: Bool { kind.isIndexed }
}
