import Glibc
import Synchronization

/// The two bounds every wait in the tests is built from, so that none of them measures how busy the machine is.
///
/// A loaded machine (the 2-core CI machine with `yes` on both cores, a kernel-lab VM and the other suites beside a
/// test) stretches any piece of work by a factor nobody can bound: the test process's cooperative pool has one thread
/// per core, shared by every test body running at once, so an in-process server's answer, the player actor or a test's
/// own poll can wait for tens of seconds (a fixed 60 s capture wait ran out 112.8 s into a test, and the in-process
/// server tests, whose reads allowed 10 s and 20 s, failed beside it). So a wait is never bounded by how long the work
/// should take. It is bounded by progress (`stallSeconds` with nothing new: no byte, frame, answer or state change)
/// and, for work that keeps moving, by a ceiling (`ceilingSeconds`) that only catches a runaway. Both are far beyond
/// what load has done; they only decide how long a real hang takes to be reported.
///
/// Constants; any thread may read them.
public enum Patience {
    /// Nothing new for this long is a hang, not a slow machine: the per-read timeout of the tests' protocol clients,
    /// and the stall `withProgressWatchdog` and `waitWhileProgressing` allow.
    public static let stallSeconds: Double = 120
    /// The most a wait that keeps making progress may take (a capture that never ends, a queue that loops for ever).
    public static let ceilingSeconds: Double = 600

    /// `stallSeconds` as a `Duration`.
    public static var stall: Duration { .seconds(stallSeconds) }
    /// `ceilingSeconds` as a `Duration`.
    public static var ceiling: Duration { .seconds(ceilingSeconds) }

    /// Polls `condition` every 10 ms until it holds (true) or `stallSeconds` have passed (false), for a state that
    /// comes once some work is done (the player has handled an event, a connection is counted closed) and shows no
    /// progress before that: the bound is only a hang detector. Any task may call it.
    public static func wait(until condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + stall
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return try await condition()
    }

    /// `wait(until:)` for a thread: blocks, so call it off the cooperative pool (`onThread`).
    public static func waitBlocking(until condition: () throws -> Bool) rethrows -> Bool {
        let deadline = ContinuousClock.now + stall
        while ContinuousClock.now < deadline {
            if try condition() { return true }
            usleep(10_000)
        }
        return try condition()
    }
}

/// Why a wait judged by progress gave up: what it waited for, and whether it stalled or ran away.
public struct Stalled: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}

/// Waits for `body` while the work it waits for keeps moving: ends it with `Stalled` only when `progress` (a
/// reading of the work: bytes captured, frames heard, answers counted) has shown nothing new for `stallSeconds`,
/// or when the wait has lasted `ceilingSeconds` in all (a runaway). This replaces a fixed deadline on work whose
/// duration depends on the machine's load: a slow machine keeps producing readings, a hung one does not.
///
/// - `progress` is read every 100 ms on its own task; a reading that throws ends the wait with its error (a capture
///   past a size no test makes, say). A reading that never returns (the actor it asks is hung) counts as no
///   progress, since the judging runs on a third task.
/// - Only the time the judging task itself saw pass counts towards a stall, at most a second between two looks: a
///   process starved as a whole (nothing ran, the watchdog included) has not seen its work stall.
/// - `body` runs as a task of its own and is cancelled when the wait gives up; the wait does not wait for it to
///   end (a hung body would otherwise hang the test: `Player.waitUntilStopped` ignores cancellation).
/// - Cancelling the calling task ends the wait with `CancellationError` (a suite's time limit).
///
/// Any task may call it.
public func withProgressWatchdog<Value: Sendable, Reading: Equatable & Sendable>(
    _ what: String, stallSeconds: Double = Patience.stallSeconds, ceilingSeconds: Double = Patience.ceilingSeconds,
    progress: @escaping @Sendable () async throws -> Reading,
    _ body: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let race = WatchdogRace<Value>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
            race.arm(continuation)
            let work = Task {
                do { race.finish(.success(try await body())) } catch { race.finish(.failure(error)) }
            }
            let reader = Task {
                var last: Reading?
                do {
                    while !race.isFinished {
                        let reading = try await progress()
                        if reading != last {
                            last = reading
                            race.moved()
                        }
                        try await Task.sleep(for: .milliseconds(100))
                    }
                } catch is CancellationError {
                } catch {
                    race.finish(.failure(error))
                }
            }
            let judge = Task {
                let clock = ContinuousClock()
                let start = clock.now
                var lastLook = start
                var seen = race.moves
                var still = Duration.zero
                while !race.isFinished {
                    try? await Task.sleep(for: .milliseconds(250))
                    let now = clock.now
                    let moves = race.moves
                    if moves != seen {
                        seen = moves
                        still = .zero
                    } else {
                        still += min(now - lastLook, .seconds(1))
                    }
                    lastLook = now
                    if still >= .seconds(stallSeconds) {
                        race.finish(.failure(Stalled(description: "\(what): nothing new for \(Int(stallSeconds)) s "
                                                         + "(\(Int((now - start) / .seconds(1))) s in all)")))
                    } else if now - start >= .seconds(ceilingSeconds) {
                        race.finish(.failure(Stalled(description: "\(what): still going after \(Int(ceilingSeconds)) s "
                                                         + "(a runaway: it kept making progress but never ended)")))
                    }
                }
            }
            race.hold([work, reader, judge])
        }
    } onCancel: {
        race.finish(.failure(CancellationError()))
    }
}

/// The state `withProgressWatchdog` shares between its tasks: the continuation (resumed once, by whichever of the
/// body, the reader, the judge and cancellation comes first), how many new readings there were, and the tasks to
/// cancel once it is decided. Sendable: everything is behind one `Mutex`.
private final class WatchdogRace<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var outcome: Result<Value, any Error>?
        var tasks: [Task<Void, Never>] = []
        var moves = 0
    }

    private let state = Mutex(State())

    var isFinished: Bool { state.withLock { $0.outcome != nil } }
    var moves: Int { state.withLock { $0.moves } }

    func moved() { state.withLock { $0.moves += 1 } }

    /// Stores the continuation; resumes it at once when the outcome came first (cancellation before the start).
    func arm(_ continuation: CheckedContinuation<Value, any Error>) {
        let early = state.withLock { state -> Result<Value, any Error>? in
            if let outcome = state.outcome { return outcome }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    /// Keeps the tasks to cancel when the outcome is known (at once if it already is).
    func hold(_ tasks: [Task<Void, Never>]) {
        let decided = state.withLock { state -> Bool in
            if state.outcome != nil { return true }
            state.tasks = tasks
            return false
        }
        if decided { tasks.forEach { $0.cancel() } }
    }

    /// The first outcome wins: it resumes the continuation and cancels the tasks; later ones are dropped.
    func finish(_ outcome: Result<Value, any Error>) {
        let taken = state.withLock { state -> State? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            let taken = state
            state.continuation = nil
            state.tasks = []
            return taken
        }
        guard let taken else { return }
        taken.continuation?.resume(with: outcome)
        taken.tasks.forEach { $0.cancel() }
    }
}

/// The blocking form of `withProgressWatchdog`, for a test that waits on threads it started: polls every 10 ms until
/// `finished()` holds (true), or until `progress()` has shown nothing new for `stallSeconds` or the wait has lasted
/// `ceilingSeconds` (false: the caller then unblocks its threads and fails). As there, only the time this thread saw
/// pass counts towards a stall, at most a second between two looks. Blocks: call it off the cooperative pool
/// (`onThread`). Any thread may call it.
public func waitWhileProgressing<Reading: Equatable>(
    stallSeconds: Double = Patience.stallSeconds, ceilingSeconds: Double = Patience.ceilingSeconds,
    progress: () -> Reading, until finished: () -> Bool
) -> Bool {
    let clock = ContinuousClock()
    let start = clock.now
    var lastLook = start
    var last = progress()
    var still = Duration.zero
    while !finished() {
        usleep(10_000)
        let now = clock.now
        let reading = progress()
        if reading != last {
            last = reading
            still = .zero
        } else {
            still += min(now - lastLook, .seconds(1))
        }
        lastLook = now
        if still >= .seconds(stallSeconds) || now - start >= .seconds(ceilingSeconds) { return finished() }
    }
    return true
}
