import Foundation
import Synchronization

/// How far a scan has got, for the CLI and the protocol's `updating_db` status.
///
/// A value snapshot; safe to pass anywhere.
public struct ScanProgress: Sendable, Hashable {
    /// Where a scan is.
    public enum Phase: String, Sendable, Hashable {
        /// No scan has run since the library opened.
        case idle
        /// Listing directories, reading new and changed files, writing batches.
        case scanning
        /// Removing vanished files, re-attaching identities, committing.
        case finishing
        case finished
        case cancelled
        case failed
    }

    /// The scan's job number (MPD `updating_db`), 0 before the first scan.
    public var job: Int = 0
    public var phase: Phase = .idle
    /// Audio files found by the walk (by extension), changed or not.
    public var filesSeen: Int = 0
    /// Files opened to read tags (new or changed ones only).
    public var filesRead: Int = 0
    /// Files that could not be indexed, plus directories not entered, so far.
    public var errors: Int = 0
    /// Seconds since the scan started.
    public var elapsed: Double = 0

    /// Files seen per second so far.
    public var rate: Double { elapsed > 0 ? Double(filesSeen) / elapsed : 0 }
    /// Whether a scan is under way.
    public var isRunning: Bool { phase == .scanning || phase == .finishing }
}

/// The live counters of the current scan, written by the scan threads and read by anyone.
///
/// Thread-safe: counters are atomics (the walker and the reading threads bump them), the rest sits behind a mutex.
/// `updates()` streams snapshots to async observers (at most about ten a second, plus every phase change).
public final class ScanProgressSource: Sendable {
    private struct State {
        var job = 0
        var phase = ScanProgress.Phase.idle
        var started = ContinuousClock.now
        var finishedElapsed: Double?
        var observers: [UUID: AsyncStream<ScanProgress>.Continuation] = [:]
    }

    let filesSeen = Atomic<Int>(0)
    let filesRead = Atomic<Int>(0)
    let errors = Atomic<Int>(0)
    private let state = Mutex(State())

    public init() {}

    /// The current snapshot.
    public var snapshot: ScanProgress {
        state.withLock { snapshot(of: $0) }
    }

    /// Snapshots from now on (the current one first), until the stream is dropped.
    public func updates() -> AsyncStream<ScanProgress> {
        let (stream, continuation) = AsyncStream.makeStream(of: ScanProgress.self,
                                                            bufferingPolicy: .bufferingNewest(4))
        let id = UUID()
        let current = state.withLock { state in
            state.observers[id] = continuation
            return snapshot(of: state)
        }
        continuation.yield(current)
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.observers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Resets the counters for scan `job` and marks it running.
    func begin(job: Int) {
        filesSeen.store(0, ordering: .relaxed)
        filesRead.store(0, ordering: .relaxed)
        errors.store(0, ordering: .relaxed)
        state.withLock {
            $0.job = job
            $0.started = .now
            $0.finishedElapsed = nil
            $0.phase = .scanning
        }
        publish()
    }

    /// Moves to `phase` (a final phase freezes the elapsed time).
    func enter(_ phase: ScanProgress.Phase) {
        state.withLock { state in
            state.phase = phase
            if phase == .finished || phase == .cancelled || phase == .failed {
                state.finishedElapsed = Self.seconds(ContinuousClock.now - state.started)
            }
        }
        publish()
    }

    /// Sends the current snapshot to every observer.
    func publish() {
        state.withLock { state in
            let current = snapshot(of: state)
            for continuation in state.observers.values { continuation.yield(current) }
        }
    }

    private func snapshot(of state: State) -> ScanProgress {
        ScanProgress(
            job: state.job, phase: state.phase,
            filesSeen: filesSeen.load(ordering: .relaxed), filesRead: filesRead.load(ordering: .relaxed),
            errors: errors.load(ordering: .relaxed),
            elapsed: state.finishedElapsed ?? (state.phase == .idle ? 0
                : Self.seconds(ContinuousClock.now - state.started)))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
