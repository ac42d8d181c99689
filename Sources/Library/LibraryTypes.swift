import Foundation

/// Why a library call failed (SQLite's own errors come through as GRDB's `DatabaseError`).
public enum LibraryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No track at this path (relative to the music directory).
    case noSuchTrack(String)
    /// No directory at this path.
    case noSuchDirectory(String)
    /// The music directory cannot be listed; the scan changed nothing.
    case musicDirectoryUnavailable(path: String, reason: String)
    /// A value out of range (a rating above 10, an empty loop…).
    case invalidValue(String)

    public var description: String {
        switch self {
        case let .noSuchTrack(path): "no such track: \(path)"
        case let .noSuchDirectory(path): "no such directory: \(path)"
        case let .musicDirectoryUnavailable(path, reason): "cannot list the music directory \(path): \(reason)"
        case let .invalidValue(text): "invalid value: \(text)"
        }
    }
}

/// A directory's contents for MPD's `lsinfo`: its subdirectories (that hold tracks somewhere below) and its tracks.
public struct DirectoryListing: Sendable, Hashable {
    /// The directory, relative to the music directory ("" at the top).
    public var path: String
    /// Paths of the subdirectories, relative to the music directory, sorted.
    public var directories: [String]
    /// Tracks directly inside, sorted by path.
    public var tracks: [Track]
}

/// Library-wide figures for MPD's `stats`.
public struct LibraryStats: Sendable, Hashable {
    public var artists: Int
    public var albums: Int
    public var songs: Int
    /// Total length of all tracks in seconds.
    public var playtime: Double
    /// When the last complete scan finished.
    public var lastScan: Date?
}

/// Scan settings of a `Library`.
public struct LibraryOptions: Sendable {
    /// Tag-reading threads (default: the number of CPU cores, at most 4).
    public var readers: Int
    /// Directory-walking threads (default: the number of CPU cores, at most 4).
    public var walkers: Int
    /// Nice value of the scan's threads: 0 keeps the normal priority, higher is lower (default 10).
    public var niceness: Int32

    public init(readers: Int? = nil, walkers: Int? = nil, niceness: Int32 = 10) {
        let cores = min(4, ProcessInfo.processInfo.activeProcessorCount)
        self.readers = max(1, readers ?? cores)
        self.walkers = max(1, walkers ?? cores)
        self.niceness = niceness
    }
}
