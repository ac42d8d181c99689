import Foundation

/// Runs blocking work (waiting for a child process, a long synchronous scenario, a pipe read to its end) on a thread
/// of its own and awaits the result.
///
/// Swift Testing runs every test, synchronous ones included, on the cooperative pool, which has one thread per core:
/// two on the CI machine. A test that blocks a pool thread for a minute starves every other test's tasks (actors,
/// `Task.sleep` wake-ups), and real-time tests then see their tracks end before a command arrives. Any test may call
/// this, from any task.
public func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
}
