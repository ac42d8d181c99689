import Dispatch
import Synchronization

/// State shared by the scan's threads that a thread may have to wait on (a queue with no item, or no room): what a
/// condition variable gives, as a checked `Sendable` value. The state lives in a `Mutex`; a thread that finds it not
/// ready parks on a semaphore it registers under the lock, and every change wakes each parked thread once to look
/// again (a broadcast). A registered semaphore is signalled exactly once and waited on exactly once, so no wake-up is
/// lost or left over, and the semaphores are kept for reuse.
///
/// Any thread may call it. `wait` blocks: never call it from Swift's cooperative pool (the scan runs on its own
/// threads).
final class WaitableMutex<State: Sendable>: Sendable {
    private struct Guarded {
        var state: State
        /// Threads parked until the next change.
        var parked: [DispatchSemaphore] = []
        /// Semaphores of threads that woke, each back at zero, for the next thread that parks.
        var spare: [DispatchSemaphore] = []
    }

    private let guarded: Mutex<Guarded>

    init(_ state: State) {
        guarded = Mutex(Guarded(state: state))
    }

    /// Runs `body` on the state, then wakes every parked thread to look again.
    @discardableResult
    func change<Result>(_ body: (inout State) -> Result) -> Result {
        let (result, parked) = guarded.withLock { guarded in
            let result = body(&guarded.state)
            defer { guarded.parked.removeAll(keepingCapacity: true) }
            return (result, guarded.parked)
        }
        for semaphore in parked { semaphore.signal() }
        return result
    }

    /// Runs `body` on the state until it returns a value, parking between tries until another thread changes the
    /// state; then wakes the parked threads (`body` may have changed the state when it returned) and returns it.
    func wait<Result>(until body: (inout State) -> Result?) -> Result {
        var semaphore: DispatchSemaphore?
        while true {
            let woken = semaphore
            let outcome: Result?
            let toWake: [DispatchSemaphore]
            (outcome, toWake, semaphore) = guarded.withLock { guarded in
                if let woken { guarded.spare.append(woken) }
                if let result = body(&guarded.state) {
                    defer { guarded.parked.removeAll(keepingCapacity: true) }
                    return (result, guarded.parked, nil)
                }
                let parking = guarded.spare.popLast() ?? DispatchSemaphore(value: 0)
                guarded.parked.append(parking)
                return (nil, [], parking)
            }
            if let outcome {
                for other in toWake { other.signal() }
                return outcome
            }
            semaphore?.wait()
        }
    }
}
