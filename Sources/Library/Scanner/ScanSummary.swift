/// How a scan looks at files it already knows.
public enum ScanMode: String, Sendable, Hashable, CaseIterable {
    /// Files whose size and modification time are unchanged are not opened again (the default).
    case incremental
    /// Every file is read again (tags fixed by an outside tool without touching the mtime, a new reader version).
    case full
}

/// What one finished scan did: the figures the CLI prints and the tests check.
///
/// A value type; safe to pass anywhere.
public struct ScanSummary: Sendable, Hashable {
    public var job = 0
    public var mode = ScanMode.incremental
    /// Audio files the walk found (by extension), changed or not.
    public var filesSeen = 0
    /// Files opened to read tags. 0 for a rescan that found nothing changed.
    public var filesOpened = 0
    /// Tracks new to the library, re-read after a change, and gone (deleted, moved away, or now unreadable).
    public var added = 0
    public var updated = 0
    public var removed = 0
    /// Tracks skipped because size and modification time were unchanged.
    public var unchanged = 0
    /// New or changed files that took over a vanished track's identity (moves, renames, files back from a
    /// removed disk), so their custom metadata came back.
    public var identitiesRestored = 0
    /// Issues this scan recorded (files rejected or indexed with repairs, directories not entered).
    public var issuesFound = 0
    /// All issues on record after the scan (including rejected files that were not reopened because unchanged).
    public var issues = 0
    /// Tracks and directories in the library after the scan.
    public var tracks = 0
    public var directories = 0
    /// Wall-clock seconds from start to commit.
    public var seconds = 0.0
    /// Where the time went (for benchmarks and `--verbose` output).
    public var phases = ScanPhases()

    public init() {}
}

/// Seconds spent in each part of a scan. The stages overlap (they are a pipeline), so they do not add up to
/// `ScanSummary.seconds`.
public struct ScanPhases: Sendable, Hashable {
    /// Loading what the database knew (paths, sizes, mtimes).
    public var load = 0.0
    /// The walking threads' CPU time (user + system), summed.
    public var walk = 0.0
    /// The tag-reading threads' CPU time (user + system), summed.
    public var read = 0.0
    /// The writing thread's CPU time inside its batch transactions.
    public var write = 0.0
    /// Removals, identity re-attachment, directories, commit.
    public var finish = 0.0

    public init() {}
}
