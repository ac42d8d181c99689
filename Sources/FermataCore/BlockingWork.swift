import Dispatch

/// Where blocking and CPU-heavy work runs — file I/O, tag reading, filter matching over the library, building long
/// answers — so that it never occupies Swift's shared cooperative pool, which the player actor, the protocol server
/// and the watchdog need to stay responsive (on a 2-core board that pool has 2 threads: two heavy searches used to
/// freeze every other client for 13 s).
///
/// A `TaskExecutor` over a concurrent libdispatch queue: its threads come from libdispatch's overcommitting pool, so
/// a blocked or busy job never holds a cooperative thread. Use `BlockingWork.run { … }` for one synchronous call, or
/// `withTaskExecutorPreference(BlockingWork.executor) { … }` for an async stretch of such work (actor calls inside
/// still hop to their actor). Sendable; any task may use it.
public final class BlockingWork: TaskExecutor {
    /// The one executor for client and file work.
    public static let executor = BlockingWork(label: "fermata.blocking")

    private let queue: DispatchQueue

    init(label: String) { queue = DispatchQueue(label: label, qos: .utility, attributes: .concurrent) }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// Runs `body` on the executor's threads and returns its result.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            executor.queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Runs `body` on the executor's threads and returns its result (a body that cannot fail).
    public static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            executor.queue.async { continuation.resume(returning: body()) }
        }
    }
}
