import AudioCore
import Foundation
import Synchronization
import Testing
import TestSupport

/// Issue 13: `Doorbell.wait(nanoseconds:)` must not care about the wall clock. A Raspberry Pi has no real-time
/// clock: it boots with a stale time and steps CLOCK_REALTIME when NTP answers. The old wait computed its deadline on
/// CLOCK_REALTIME (`sem_timedwait`), so a step back by an hour stretched a 2 s wait by an hour, and a step forward
/// ended it at once.
///
/// How this is tested, honestly: the wall clock of this machine cannot be stepped (other tests and engineers share
/// it), and faking `clock_gettime` in the process would only show that a faked clock is obeyed. So the test steps a
/// real clock in a real kernel: ../shared/kernel-lab boots a throw-away VM where the test binary runs again, as root,
/// with `FERMATA_DOORBELL_GUEST=1`, and runs only `guestStepsTheWallClock`. There a thread waits 2 s on a Doorbell;
/// once the kernel shows that thread asleep in its timed futex wait (so the deadline has been computed before the
/// step), the guest steps CLOCK_REALTIME with `clock_settime`, back by an hour and then, in a second round, forward
/// by an hour. The waiter measures its wait on CLOCK_MONOTONIC. Both rounds must time out after 2 s: not sooner
/// (the old code returned at once after the forward step) and not after 30 s (the old code was still waiting after
/// the backward step; the guest then rings the bell to end it). Verified to fail on the old Doorbell.swift that way.
/// Skipped where the lab cannot run (like ControlsKernelTests).
@Suite(.serialized) struct DoorbellClockStepTests {
    static let guestVariable = "FERMATA_DOORBELL_GUEST"
    /// In the lab's VM only: never step the clock of a real machine.
    static let inGuest = ProcessInfo.processInfo.environment[guestVariable] == "1"
        && FileManager.default.fileExists(atPath: "/run/kernel-lab.env")
    static let waitSeconds = 2.0
    static let giveUpSeconds = 30.0

    @Test(.enabled("needs ../shared/kernel-lab (run-in-kernel.sh --check)") {
        try await onThread { !DoorbellClockStepTests.inGuest && KernelLab.available(for: "DoorbellClockStepTests") }
    })
    func aWallClockStepNeitherStretchesNorCutsATimedWait() async throws {
        let binary = try #require(try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        let run = await KernelLab.runInKernel([
            "-t", "240", "-e", "\(Self.guestVariable)=1", binary, "--testing-library", "swift-testing",
            "--filter", "DoorbellClockStepTests/guestStepsTheWallClock",
        ])
        let rounds = run.output.split(separator: "\n").filter { $0.hasPrefix("doorbell step ") }
        try #require(rounds.count == 2, "kernel lab: \(run.status)\n\(run.output)\n\(run.errors)")
        print(rounds.joined(separator: "\n"))
        for line in rounds {
            // "doorbell step -3600 s: timed out after 2.004 s" or "...: still waiting after 30 s".
            let words = line.split(separator: " ")
            let seconds = words.count > 7 ? Double(words[words.count - 2]) : nil
            #expect(line.contains(": timed out after "), "\(line)")
            #expect(seconds.map { $0 >= Self.waitSeconds && $0 < Self.giveUpSeconds } == true, "\(line)")
        }
        #expect(run.status == 0, "\(run.output)\n\(run.errors)")
    }

    /// The guest side (see the suite's comment); runs only inside the lab's VM.
    @Test(.enabled(if: DoorbellClockStepTests.inGuest)) func guestStepsTheWallClock() throws {
        for step in [-3600, 3600] {
            let bell = Doorbell()
            let outcome = Outcome()
            let waiter = WorkerThread()
            waiter.start(name: "bell-waiter") {
                let start = MonotonicClock.seconds()
                let rung = bell.wait(nanoseconds: Int(Self.waitSeconds * 1e9))
                outcome.set((rung, MonotonicClock.seconds() - start))
            }
            try Self.waitUntilInTimedFutexWait(thread: "bell-waiter")
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            now.tv_sec += step
            try #require(clock_settime(CLOCK_REALTIME, &now) == 0, "clock_settime: errno \(errno)")
            if let (rung, seconds) = outcome.wait(seconds: Self.giveUpSeconds) {
                let how = rung ? "rung" : "timed out"
                print("doorbell step \(step) s: \(how) after \(String(format: "%.3f", seconds)) s")
            } else {
                print("doorbell step \(step) s: still waiting after \(Int(Self.giveUpSeconds)) s")
                bell.ring()
            }
            waiter.join()
        }
    }

    /// Waits until the thread named `name` sleeps in a futex wait with a timeout (the semaphore's timed wait; the
    /// deadline is computed just before it), by reading /proc/self/task/TID/syscall: "202 uaddr op val timeout ...".
    static func waitUntilInTimedFutexWait(thread name: String) throws {
        let giveUp = MonotonicClock.seconds() + 60
        while MonotonicClock.seconds() < giveUp {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            for task in tasks {
                let comm = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
                guard comm.trimmingCharacters(in: .whitespacesAndNewlines) == name else { continue }
                let call = (try? String(contentsOfFile: "/proc/self/task/\(task)/syscall", encoding: .utf8)) ?? ""
                let fields = call.split(separator: " ")
                if fields.count > 4 && fields[0] == "202" && fields[4] != "0x0" { return }
            }
            usleep(1_000)
        }
        throw Failure(description: "\(name) never slept in a timed futex wait")
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    /// The waiter's result, handed to the test's thread.
    /// The waiter's result, handed over with a signal (no polling).
    final class Outcome: Sendable {
        private let value = Mutex<(rung: Bool, seconds: Double)?>(nil)
        private let done = DispatchSemaphore(value: 0)
        func set(_ new: (rung: Bool, seconds: Double)) {
            value.withLock { $0 = new }
            done.signal()
        }
        /// The result once set, or nil after `seconds`.
        func wait(seconds: Double) -> (rung: Bool, seconds: Double)? {
            _ = done.wait(timeout: .now() + seconds)
            return value.withLock { $0 }
        }
    }
}
