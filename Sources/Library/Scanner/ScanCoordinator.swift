import AudioCore
import DatabaseFile
import Foundation
import Logging
import Synchronization

/// Runs the library's scans one at a time, each on a thread of its own at lowered priority (never on the cooperative
/// pool), numbering them as MPD numbers `update` jobs, and keeps the last summary.
///
/// Thread-safe (a mutex guards the state); `Library` calls it from any task.
final class ScanCoordinator: Sendable {
    private struct State {
        var nextJob = 1
        var running: Scanner?
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
        var last: ScanSummary?
    }

    private let database: FermataDatabase
    private let root: String
    private let options: LibraryOptions
    private let logger: Logger
    let progress = ScanProgressSource()
    private let state = Mutex(State())

    init(database: FermataDatabase, root: String, options: LibraryOptions, logger: Logger) {
        self.database = database
        self.root = root
        self.options = options
        self.logger = logger
    }

    var lastSummary: ScanSummary? { state.withLock { $0.last } }

    /// Reserves the next job number.
    func reserveJob() -> Int {
        state.withLock { state in
            defer { state.nextJob += 1 }
            return state.nextJob
        }
    }

    /// Runs scan `job` (of `scope`, a relative directory; empty: the whole library) once the scans before it are
    /// done; cancelling the calling task stops it.
    func scan(_ mode: ScanMode, scope: [UInt8] = [], job: Int) async throws -> ScanSummary {
        await acquire()
        defer { release() }
        try Task.checkCancellation()
        let settings = Scanner.Settings(root: root, mode: mode, scope: scope, job: job, readers: options.readers,
                                        walkers: options.walkers, niceness: options.niceness)
        let scanner = Scanner(database: database, settings: settings, progress: progress)
        state.withLock { $0.running = scanner }
        defer { state.withLock { $0.running = nil } }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<ScanSummary, any Error>,
                                                                               Never>) in
                WorkerThread.detached(name: "fermata-scan", priority: settings.threadPriority) { [database] in
                    let result = Result { try scanner.run() }
                    Self.giveBackScanMemory(database)
                    continuation.resume(returning: result)
                }
            }
        } onCancel: {
            scanner.cancel()
        }
        return try finish(result, scanner: scanner, mode: mode, job: job)
    }

    /// After a scan, on its thread: SQLite's page caches (the writer's and the readers') and the heap the scan's
    /// threads freed go back to the kernel. Without it a 20,000-file first scan left fermatad
    /// with 23 MiB more anonymous memory than the same daemon restarted (`Tests/Tools/lossy-bench.sh --tests queue`).
    /// Waits for reads in progress (the scan's thread, not a client's, waits).
    private static func giveBackScanMemory(_ database: FermataDatabase) {
        database.pool.releaseMemory()
        HeapTrim.now()
    }

    /// Asks the running scan, if any, to stop.
    func cancel() {
        state.withLock { $0.running }?.cancel()
    }

    private func finish(
        _ result: Result<ScanSummary, any Error>, scanner: Scanner, mode: ScanMode, job: Int
    ) throws -> ScanSummary {
        switch result {
        case let .success(summary):
            // The summary first: whoever sees the phase `finished` (a `scan_status` follower) must find this scan's
            // summary as the last one. The other order let `fermata scan` under load read "finished" with the previous
            // summary and report its own scan as failed.
            state.withLock { $0.last = summary }
            progress.enter(.finished)
            logger.info("library scan \(job) (\(mode.rawValue)) done", metadata: [
                "seconds": "\(summary.seconds)", "seen": "\(summary.filesSeen)", "opened": "\(summary.filesOpened)",
                "added": "\(summary.added)", "updated": "\(summary.updated)", "removed": "\(summary.removed)",
                "restored": "\(summary.identitiesRestored)", "issues": "\(summary.issuesFound)",
            ])
            return summary
        case let .failure(Scanner.Failure.musicDirectory(path, reason)):
            progress.enter(.failed)
            logger.error("library scan \(job) failed: cannot list \(path): \(reason)")
            throw LibraryError.musicDirectoryUnavailable(path: path, reason: reason)
        case .failure(Scanner.Failure.cancelled):
            progress.enter(.cancelled)
            logger.notice("library scan \(job) cancelled")
            throw CancellationError()
        case let .failure(error):
            progress.enter(.failed)
            logger.error("library scan \(job) failed: \(error)")
            throw error
        }
    }

    /// Waits until no other scan runs (first come, first served).
    private func acquire() async {
        await withCheckedContinuation { continuation in
            let runNow = state.withLock { state -> Bool in
                if !state.busy {
                    state.busy = true
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if runNow { continuation.resume() }
        }
    }

    /// Lets the next waiting scan run.
    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
