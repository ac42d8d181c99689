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
/// of the tree not listed, the issues met on the way). The walk starts while the scan thread still loads what the
/// database knew (`KnownFilesHandoff`): files met before that are held (at most `earlyLimit`, then the walker waits)
/// and compared as soon as it is there.
///
/// Made and used by one walking thread, which merges its findings into the scan's `WalkResult` when it ends; never
/// shared (so not `Sendable`).
final class WalkCollector: WalkVisitor {
    private let handoff: KnownFilesHandoff
    /// What the database knew, once the scan thread has published it; nil before (or for good when the load failed:
    /// the scan is cancelled then, and files are dropped).
    private var known: KnownFiles?
    private var loadFailed = false
    /// Files met before `known` was published, in walk order.
    private var early: [(path: [UInt8], size: Int64, modified: Int64)] = []
    /// How many files a walker holds before it waits for the load (bounds the memory a slow load can cost).
    let earlyLimit: Int
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

    init(known handoff: KnownFilesHandoff, mode: ScanMode, jobs: BlockingQueue<[ScanJob]>,
         progress: ScanProgressSource, batchSize: Int = 32, earlyLimit: Int = 4_096) {
        self.handoff = handoff
        self.earlyLimit = earlyLimit
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
        guard let known = known ?? arrival(block: early.count >= earlyLimit) else {
            if !loadFailed { early.append((path, size, modified)) }
            return
        }
        compare(path, size: size, modified: modified, with: known)
    }

    /// `known` when it has just been published (waiting for it when `block`), after comparing the files held until
    /// then; nil while the load runs, or when it failed.
    private func arrival(block: Bool) -> KnownFiles? {
        guard !loadFailed else { return nil }
        let outcome: KnownFiles?
        if block {
            outcome = handoff.wait()
        } else {
            guard let published = handoff.ready else { return nil }
            outcome = published
        }
        guard let outcome else {
            loadFailed = true
            early = []
            return nil
        }
        known = outcome
        let held = early
        early = []
        for file in held { compare(file.path, size: file.size, modified: file.modified, with: outcome) }
        return outcome
    }

    private func compare(_ path: [UInt8], size: Int64, modified: Int64, with known: KnownFiles) {
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

    /// Compares the files still held (waiting for the load if it has not ended), then hands the pending batch to
    /// the readers. Called when the walker has no directory left.
    func finish() {
        if known == nil { _ = arrival(block: true) }
        flush()
    }

    /// Hands the pending batch to the readers.
    func flush() {
        guard !batch.isEmpty else { return }
        jobs.push(batch)
        batch = []
    }
}
