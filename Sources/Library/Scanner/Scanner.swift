import AudioCore
import DatabaseFile
import Decoders
import Foundation
import Glibc
import GRDB
import Synchronization

/// One scan of the music directory. A pipeline of threads of its own, all at lowered priority: `walkers` threads list
/// directories and stat audio files, comparing each with what the database knew; `readers` threads read the tags of
/// new and changed files; the calling thread writes their results in batched transactions, then finishes (removals,
/// identities, directories). Bounded queues between the stages bound its memory.
///
/// Not thread-safe: `run` blocks its calling thread (the library's scan thread, never the cooperative pool) until the
/// scan ends. `cancel` may be called from anywhere.
final class Scanner: Sendable {
    /// Why a scan stopped early.
    enum Failure: Error {
        /// The music directory itself could not be listed: nothing was changed.
        case musicDirectory(path: String, reason: String)
        case cancelled
    }

    /// What to scan and with how many threads at which priority.
    struct Settings: Sendable {
        var root: String
        var mode: ScanMode
        /// The part of the library to scan (MPD's `update DIR`): a relative path, raw bytes; empty for all of it.
        /// Known files outside it are left as they are.
        var scope: [UInt8] = []
        var job: Int
        /// Tag-reading threads.
        var readers: Int
        /// Directory-walking threads.
        var walkers: Int
        /// Nice value of the scan threads (0–19).
        var niceness: Int32

        var threadPriority: WorkerThread.Priority { .background(niceness: niceness) }
    }

    private let database: FermataDatabase
    private let settings: Settings
    private let progress: ScanProgressSource
    private let cancelled = Atomic<Bool>(false)
    private let runningWalkers = Atomic<Int>(0)
    private let runningReaders = Atomic<Int>(0)
    private let walkNanoseconds = Atomic<Int>(0)
    private let readNanoseconds = Atomic<Int>(0)
    /// What the walking threads found besides files, each walker's merged in when it ends.
    private let walked = Mutex(WalkResult())

    init(database: FermataDatabase, settings: Settings, progress: ScanProgressSource) {
        self.database = database
        self.settings = settings
        self.progress = progress
    }

    /// Asks the scan to stop at its next check (a directory, a file, a batch). What was committed stays.
    func cancel() {
        cancelled.store(true, ordering: .relaxed)
    }

    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// Runs the whole scan on the calling thread (plus its own helpers) and returns its summary.
    func run() throws -> ScanSummary {
        let clock = ContinuousClock.now
        let now = Int64(Date().timeIntervalSince1970)
        progress.begin(job: settings.job)
        let tree: DirectoryWalker
        do throws(DirectoryWalker.RootError) {
            tree = try DirectoryWalker(root: settings.root,
                                       extensions: DecoderRegistry.scannedExtensions.map { Array($0.utf8) })
        } catch {
            throw Failure.musicDirectory(path: settings.root, reason: error.reason)
        }
        let pool = database.pool
        // Tracks above `matchedThrough` were added since the last finished scan: candidates for missing identities.
        let (scan, nextIdentity, matchedThrough) = try pool.write { db in
            try db.execute(sql: "UPDATE scan_state SET generation = generation + 1 WHERE id = 1")
            let state = try Row.fetchOne(db, sql: """
                SELECT generation, next_identity, matched_through FROM scan_state WHERE id = 1
                """)
            let generation: Int64 = state?[0] ?? 1
            let identity: Int64 = state?[1] ?? 1
            let track: Int64 = state?[2] ?? 0
            return (generation, identity, track)
        }
        var phases = ScanPhases()
        let jobs = BlockingQueue<[ScanJob]>(capacity: 4 * settings.readers)
        let start = tree.start(at: settings.scope)
        // The walk starts now and the load of what the database knew runs beside it (`KnownFilesHandoff`).
        let handoff = KnownFilesHandoff()
        let walkers = startWalkers(tree, from: start, known: handoff, jobs: jobs)
        var mark = ContinuousClock.now
        let known: KnownFiles, directoryIDs: [String: Int64]
        do {
            (known, directoryIDs) = try pool.read { db in
                (try KnownFiles.load(db, expected: Int(matchedThrough), scope: start.path),
                 try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT path, id FROM directory").map {
                     ($0[0] as String, $0[1] as Int64)
                 }))
            }
        } catch {
            cancel()
            handoff.publish(nil)
            walkers.forEach { $0.join() }
            throw error
        }
        handoff.publish(known)
        phases.load = ScanProgressSource.seconds(ContinuousClock.now - mark)
        // Room for two of the writer's batches (of about 32 files each), so the readers keep reading while it
        // commits one: the queues are what bound the scan's memory.
        let outcomes = BlockingQueue<[ReadOutcome]>(capacity: 2 * ScanWriter.batchRange.upperBound / 32)
        let readers = startReaders(jobs: jobs, outcomes: outcomes)
        let writer = ScanWriter(pool: pool, scan: scan, now: now, nextIdentity: nextIdentity, directoryIDs: directoryIDs,
                                searchIndex: SearchIndexBudget(knownTracks: known.trackCount))
        var writeError: (any Error)?
        var lastPublish = ContinuousClock.now
        // Write a full batch when one is waiting; when the readers fall behind, write what there is rather than idle.
        while true {
            let batch: [ReadOutcome]
            if let ready = outcomes.tryPop() {
                batch = ready
            } else if writer.pendingCount >= 256, writeError == nil, !isCancelled {
                batch = []
            } else if let next = outcomes.pop() {
                batch = next
            } else {
                break
            }
            guard writeError == nil, !isCancelled else { continue }
            let cpu = Self.threadCPUNanoseconds()
            do {
                if batch.isEmpty { try writer.flush() } else { try writer.add(batch) }
            } catch {
                writeError = error
                cancel()
            }
            phases.write += Double(Self.threadCPUNanoseconds() - cpu) / 1e9
            if ContinuousClock.now - lastPublish > .milliseconds(100) {
                progress.publish()
                lastPublish = .now
            }
        }
        (walkers + readers).forEach { $0.join() }
        if writer.searchIndex.rebuildPending, writeError != nil || isCancelled {
            try? pool.write { db in try SearchIndex.rebuild(db) }
        }
        if let writeError { throw writeError }
        if isCancelled { throw Failure.cancelled }
        let cpu = Self.threadCPUNanoseconds()
        try writer.flush()
        phases.write += Double(Self.threadCPUNanoseconds() - cpu) / 1e9
        let walk = walked.withLock { $0 }
        progress.enter(.finishing)
        mark = .now
        let finished = try ScanFinisher(pool: pool, scan: scan, lastTrackBefore: matchedThrough, now: now,
                                        scope: PathText.display(start.path))
            .finish(known: known, knownDirectories: directoryIDs, writer: writer, walk: walk)
        phases.finish = ScanProgressSource.seconds(ContinuousClock.now - mark)
        phases.walk = Double(walkNanoseconds.load(ordering: .relaxed)) / 1e9
        phases.read = Double(readNanoseconds.load(ordering: .relaxed)) / 1e9
        var summary = ScanSummary()
        summary.job = settings.job
        summary.mode = settings.mode
        summary.filesSeen = progress.filesSeen.load(ordering: .relaxed)
        summary.filesOpened = progress.filesRead.load(ordering: .relaxed)
        summary.added = writer.added
        summary.updated = writer.updated
        summary.removed = finished.removed
        summary.unchanged = walk.unchanged
        summary.identitiesRestored = finished.restored
        summary.issuesFound = writer.issuesFound + walk.issues.count
        let counts = try pool.read { db in
            try Row.fetchOne(db, sql: """
                SELECT (SELECT count(*) FROM scan_issue), (SELECT count(*) FROM track),
                       (SELECT count(*) FROM directory)
                """)
        }
        summary.issues = counts?[0] ?? 0
        summary.tracks = counts?[1] ?? 0
        summary.directories = counts?[2] ?? 0
        summary.seconds = ScanProgressSource.seconds(ContinuousClock.now - clock)
        summary.phases = phases
        return summary
    }

    /// Starts the walking threads, which share the tree through a `WalkQueue` and compare its files with what `known`
    /// hands them once loaded; each merges what it found into `walked` when it ends, and the last to finish closes
    /// `jobs`.
    private func startWalkers(
        _ tree: DirectoryWalker, from start: PendingDirectory, known: KnownFilesHandoff, jobs: BlockingQueue<[ScanJob]>
    ) -> [WorkerThread] {
        let queue = WalkQueue(start: start) { [self] in isCancelled }
        runningWalkers.store(settings.walkers, ordering: .relaxed)
        return (0..<settings.walkers).map { index in
            WorkerThread.started(name: "fermata-walk-\(index)", priority: settings.threadPriority) { [self] in
                let collector = WalkCollector(known: known, mode: settings.mode, jobs: jobs, progress: progress)
                while let directory = queue.next() {
                    queue.finished(adding: tree.list(directory, visitor: collector))
                }
                collector.finish()
                walked.withLock { $0.merge(collector) }
                walkNanoseconds.add(Self.threadCPUNanoseconds(), ordering: .relaxed)
                if runningWalkers.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { jobs.close() }
            }
        }
    }

    /// CPU time the calling thread has used (user + system).
    private static func threadCPUNanoseconds() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Int(time.tv_sec) * 1_000_000_000 + Int(time.tv_nsec)
    }

    /// Starts the tag-reading threads; the last one to finish closes `outcomes`.
    private func startReaders(jobs: BlockingQueue<[ScanJob]>, outcomes: BlockingQueue<[ReadOutcome]>) -> [WorkerThread] {
        runningReaders.store(settings.readers, ordering: .relaxed)
        return (0..<settings.readers).map { index in
            WorkerThread.started(name: "fermata-tags-\(index)", priority: settings.threadPriority) { [self] in
                let reader = ScanReader()
                while let batch = jobs.pop() {
                    if isCancelled { continue }
                    var results: [ReadOutcome] = []
                    results.reserveCapacity(batch.count)
                    for job in batch {
                        let outcome = TrackFileReader.read(job, root: settings.root, with: reader)
                        if outcome.opened { progress.filesRead.add(1, ordering: .relaxed) }
                        if case .rejected = outcome.result { progress.errors.add(1, ordering: .relaxed) }
                        results.append(outcome)
                    }
                    outcomes.push(results)
                }
                readNanoseconds.add(Self.threadCPUNanoseconds(), ordering: .relaxed)
                if runningReaders.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { outcomes.close() }
            }
        }
    }
}
