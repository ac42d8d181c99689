/// The directories still to list, shared by the walking threads: each takes one, lists it, and hands back its
/// subdirectories. Last in, first out, so the walk goes depth first and the pending list stays short.
///
/// Any walking thread may call it (the state is a `WaitableMutex`). `next` returns nil once no directory is pending
/// and no thread is listing one (or the scan was cancelled).
final class WalkQueue: Sendable {
    private struct State: Sendable {
        var pending: [PendingDirectory]
        /// Threads listing a directory now (each may still add subdirectories).
        var busy = 0
    }

    private let state: WaitableMutex<State>
    private let isCancelled: @Sendable () -> Bool

    init(start: PendingDirectory, isCancelled: @escaping @Sendable () -> Bool) {
        state = WaitableMutex(State(pending: [start]))
        self.isCancelled = isCancelled
    }

    /// The next directory to list, waiting while other threads may still add some; nil when the walk is over.
    func next() -> PendingDirectory? {
        let isCancelled = isCancelled
        return state.wait { state -> PendingDirectory?? in
            if isCancelled() { return .some(nil) }
            if let directory = state.pending.popLast() {
                state.busy += 1
                return .some(directory)
            }
            return state.busy == 0 ? .some(nil) : nil
        }
    }

    /// Reports a listed directory and the subdirectories found in it.
    func finished(adding children: [PendingDirectory]) {
        state.change { state in
            state.pending.append(contentsOf: children.reversed())
            state.busy -= 1
        }
    }
}
