import Synchronization

/// Hands the files known before a scan from the scan thread, which loads them from the database, to the walking
/// threads, which start listing the tree at the same time: on a no-change rescan the load and the walk are each
/// about a fifth of the time, and neither needs the other until the walk meets its first file.
///
/// The scan thread calls `publish` exactly once (with nil when the load failed: the scan is then cancelled); the
/// walking threads call `ready` (never blocks) and `wait` (blocks until `publish`; only from the scan's own threads,
/// never from Swift's cooperative pool).
final class KnownFilesHandoff: Sendable {
    /// What the walkers can learn: still loading, or the outcome of the load.
    private enum State: Sendable {
        case loading
        case loaded(KnownFiles?)
    }

    private let state = WaitableMutex<State>(.loading)
    /// Set after `state` holds the outcome, so `ready` costs one atomic load while the load runs.
    private let published = Atomic<Bool>(false)

    init() {}

    /// Gives the walkers what the database knew (nil: the load failed).
    func publish(_ known: KnownFiles?) {
        state.change { $0 = .loaded(known) }
        published.store(true, ordering: .releasing)
    }

    /// The outcome if it is published: `.some(nil)` when the load failed, nil while it runs.
    var ready: KnownFiles?? {
        guard published.load(ordering: .acquiring) else { return nil }
        return wait()
    }

    /// Blocks until the outcome is published (nil: the load failed).
    func wait() -> KnownFiles? {
        state.wait { state in
            if case .loaded(let known) = state { return .some(known) }
            return nil
        }
    }
}
