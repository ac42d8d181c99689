/// A file the walk found new or changed, to be read by a tag-reading thread.
struct ScanJob: Sendable {
    /// Raw relative path ('/'-separated bytes).
    var path: [UInt8]
    var size: Int64
    var modified: Int64
    /// The track row it replaces when the file was known (changed), else nil.
    var trackID: Int64?
    /// Whether a rejected file was on record at this path (its issue is replaced).
    var wasRejected: Bool
}

/// What the walking threads found besides files, merged for the finishing step.
struct WalkResult {
    /// Relative paths (display form) of every directory listed.
    var directories: [String] = []
    /// Directories that could not be listed: what is known under them is kept.
    var unlisted: [String] = []
    /// Issues found by the walk itself (not by reading files).
    var issues: [(path: [UInt8], kind: ScanIssue.Kind, reason: String)] = []
    /// Known tracks seen unchanged.
    var unchanged = 0

    mutating func merge(_ collector: WalkCollector) {
        directories += collector.directories
        unlisted += collector.unlisted
        issues += collector.issues
        unchanged += collector.unchanged
    }
}

/// One walking thread's visitor: compares each file with what the database knew, marks known files seen, batches the
/// new and changed ones for the readers, and keeps what the finishing step needs (the directories listed, the parts
/// of the tree not listed, the issues met on the way).
///
/// Made and used by one walking thread, which merges its findings into the scan's `WalkResult` when it ends; never
/// shared (so not `Sendable`).
final class WalkCollector: WalkVisitor {
    private let known: KnownFiles
    private let mode: ScanMode
    private let jobs: BlockingQueue<[ScanJob]>
    private let progress: ScanProgressSource
    private let batchSize: Int
    private var batch: [ScanJob] = []

    /// Relative paths (display form) of every directory entered.
    private(set) var directories: [String] = []
    /// Directories that could not be listed: what is known under them is kept.
    private(set) var unlisted: [String] = []
    /// Issues found by the walk itself (not by reading files).
    private(set) var issues: [(path: [UInt8], kind: ScanIssue.Kind, reason: String)] = []
    /// Known tracks seen unchanged.
    private(set) var unchanged = 0

    init(known: KnownFiles, mode: ScanMode, jobs: BlockingQueue<[ScanJob]>, progress: ScanProgressSource,
         batchSize: Int = 32) {
        self.known = known
        self.mode = mode
        self.jobs = jobs
        self.progress = progress
        self.batchSize = batchSize
    }

    func enter(directory path: [UInt8]) {
        directories.append(PathText.display(path))
    }

    func file(_ path: [UInt8], size: Int64, modified: Int64) {
        progress.filesSeen.add(1, ordering: .relaxed)
        var trackID: Int64?
        var wasRejected = false
        if let found = known.lookup(path) {
            known.markSeen(found)
            let entry = known.entries[found]
            if mode == .incremental, entry.size == size, entry.modified == modified {
                if entry.isRejected { progress.errors.add(1, ordering: .relaxed) } else { unchanged += 1 }
                return
            }
            if entry.isRejected { wasRejected = true } else { trackID = entry.rowID }
        }
        batch.append(ScanJob(path: path, size: size, modified: modified, trackID: trackID, wasRejected: wasRejected))
        if batch.count >= batchSize { flush() }
    }

    func unreadable(directory path: [UInt8], reason: String) {
        unlisted.append(PathText.display(path))
        issues.append((path, .unreadableDirectory, reason))
        progress.errors.add(1, ordering: .relaxed)
    }

    func skipped(_ path: [UInt8], kind: ScanIssue.Kind, reason: String) {
        issues.append((path, kind, reason))
        progress.errors.add(1, ordering: .relaxed)
    }

    /// Hands the pending batch to the readers.
    func flush() {
        guard !batch.isEmpty else { return }
        jobs.push(batch)
        batch = []
    }
}
