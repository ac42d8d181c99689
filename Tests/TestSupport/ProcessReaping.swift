import Foundation
import Synchronization

/// Exit statuses this process collected itself with `waitpid`, by pid.
private let reaped = Mutex<[pid_t: Int32]>([:])

/// Waiting for child processes without Foundation's `waitUntilExit`/`isRunning`.
///
/// Foundation (Linux) learns that a child exited when a socket the child inherited closes. A child started at the same
/// moment from another thread can inherit that socket too; while it lives, Foundation never notices the first child's
/// exit, and `waitUntilExit` hangs (CI saw `mpc` zombies while a concurrently started `fermatad` ran). These reap the
/// exact pid with `waitpid`, and fall back to Foundation's status when Foundation reaped first (ECHILD).
/// Any thread may call them; they poll, so call them off the cooperative pool (`onThread`).
extension Process {
    /// Waits until the child has exited (at most `timeout` seconds); true when it has.
    @discardableResult
    public func reap(timeout: Double = .infinity) -> Bool {
        let pid = processIdentifier
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if reaped.withLock({ $0[pid] }) != nil { return true }
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                reaped.withLock { $0[pid] = status }
                return true
            }
            if result == -1 && errno == ECHILD {
                // Foundation collected it; its bookkeeping follows at once.
                let settle = Date().addingTimeInterval(5)
                while isRunning && Date() < settle { usleep(1_000) }
                let foundation = terminationReason == .exit ? (terminationStatus & 0xff) << 8 : terminationStatus & 0x7f
                reaped.withLock { $0[pid] = foundation }
                return true
            }
            if Date() >= deadline { return false }
            usleep(2_000)
        }
    }

    /// Whether the child is still running (collects it if it has exited).
    public var isAlive: Bool { !reap(timeout: 0) }

    private var reapedStatus: Int32 {
        reap()
        return reaped.withLock { $0[processIdentifier] } ?? 0
    }

    /// Like `terminationStatus`: the exit code, or the signal number when a signal ended it. Waits for the exit.
    public var reapedTerminationStatus: Int32 {
        let status = reapedStatus
        return status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
    }

    /// Like `terminationReason`. Waits for the exit.
    public var reapedTerminationReason: TerminationReason { reapedStatus & 0x7f == 0 ? .exit : .uncaughtSignal }
}
