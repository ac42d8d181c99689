import AudioCore
import Controls
import Foundation
import Logging
import Synchronization

/// `latency`: edge timestamp → action delivered to the player, for a button that acts on press. `--sim` presses a
/// gpio-sim line through sysfs (inside the kernel lab: the real libgpiod and kernel path); `--pipe` writes edge
/// records stamped with the current time into the service's record input. The edge timestamp is the kernel's (or,
/// with user-space debounce, the moment the debounce period ran out), so debounce itself is excluded.
struct LatencyBenchmark {
    let arguments: BenchArguments

    init(_ arguments: BenchArguments) {
        self.arguments = arguments
    }

    func run() async throws {
        let presses = arguments.int("--presses", 300)
        var config = ControlsConfig()
        config.debounceMs = arguments.int("--debounce-ms", 10)
        config.realtimePriority = arguments.int("--realtime-priority", 10)
        let rig = try BenchRig(sim: arguments.sim, uinput: arguments.uinput, lines: 1)
        config.buttons = [ButtonConfig(name: "button", line: rig.line(0), actions: [.press: .togglePause])]
        config.inputs = rig.inputs
        let probe = DeliveryProbe()
        let service = GPIOInputService(config: config, player: NullPlayer(), logger: Logger(label: "bench"),
                                       input: rig.input(userDebounce: true), observer: { event in
            let now = MonotonicClock.nanoseconds()
            switch event {
            case .ready: probe.signal(at: now, edge: 0)
            case let .action(_, _, at): probe.signal(at: now, edge: at)
            default: break
            }
        })
        let task = Task { try await service.run() }
        defer { task.cancel() }
        let samples = try await Self.drive(rig, presses: presses, probe: probe, debounceMs: config.debounceMs)
        let where_ = switch rig.kind {
        case .sim: "gpio-sim, " + GPIOInputService.libraryDescription(debounceMs: config.debounceMs)
        case .uinput: "evdev: a virtual USB pedal through /dev/uinput, no debounce (the keyboard's own)"
        case .pipe: "pipe records, debounce \(config.debounceMs) ms in user space"
        }
        let floor = await WakeFloor.measure(samples: presses)
        print("latency (\(where_)), \(samples.count) presses:")
        let fromEdge = Self.summary(samples.map(\.fromEdge))
        print("  edge timestamp → action delivered: \(fromEdge) (target p99 < 2 ms)")
        print("  press written → action delivered (with debounce): " + Self.summary(samples.map(\.fromWrite)))
        print("  for reference, this machine's floor — a thread woken through a pipe, same priorities: "
            + Self.summary(floor))
    }

    /// Waits for the service, then presses and releases, waiting for each press's action — on a thread of its own:
    /// a blocking wait on the concurrency pool could starve the service (one pool thread on a one-CPU machine).
    static func drive(_ rig: BenchRig, presses: Int, probe: DeliveryProbe, debounceMs: Int) async throws
        -> [(fromEdge: UInt64, fromWrite: UInt64)] {
        try await withCheckedThrowingContinuation { continuation in
            // In pipe mode this thread takes the edge timestamps: at a real-time priority above the GPIO thread's,
            // its own preemption between stamping and writing does not count as latency.
            WorkerThread.detached(name: "bench-presser", priority: rig.kind == .pipe ? .realtime(20) : .normal) {
                guard probe.wait(seconds: 60) != nil else {
                    continuation.resume(throwing: BenchError(description: "the service did not start"))
                    return
                }
                var samples: [(UInt64, UInt64)] = []
                var random = SystemRandomNumberGenerator()
                for _ in 0..<presses {
                    let written = MonotonicClock.nanoseconds()
                    rig.set(0, pressed: true)
                    guard let (delivered, edge) = probe.wait(seconds: 5) else {
                        continuation.resume(throwing: BenchError(description: "a press was not delivered"))
                        return
                    }
                    samples.append((delivered - edge, delivered - written))
                    usleep(UInt32(20_000 + Int.random(in: 0..<20_000, using: &random)))
                    rig.set(0, pressed: false)
                    usleep(UInt32(20_000 + debounceMs * 1000 + Int.random(in: 0..<20_000, using: &random)))
                }
                continuation.resume(returning: samples)
            }
        }
    }

    static func summary(_ values: [UInt64]) -> String {
        let sorted = values.sorted()
        func ms(_ v: UInt64) -> String { String(format: "%.3f ms", Double(v) / 1e6) }
        let p99 = sorted[max(0, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
        return "p50 \(ms(sorted[sorted.count / 2])), p99 \(ms(p99)), max \(ms(sorted.last!))"
    }
}

/// Hands (delivery time, edge time) pairs from the service's observer to the driving thread. Any thread.
final class DeliveryProbe: Sendable {
    private let pending = Mutex<[(UInt64, UInt64)]>([])
    private let semaphore = DispatchSemaphore(value: 0)

    func signal(at now: UInt64, edge: UInt64) {
        pending.withLock { $0.append((now, edge)) }
        semaphore.signal()
    }

    func wait(seconds: Double) -> (UInt64, UInt64)? {
        guard semaphore.wait(timeout: .now() + seconds) == .success else { return nil }
        return pending.withLock { $0.removeFirst() }
    }
}

/// The platform's own wake-up latency, measured the way the pipe benchmark works but with nothing in between: a
/// SCHED_FIFO 10 thread blocked in poll(2) on a pipe, a SCHED_FIFO 20 writer stamping CLOCK_MONOTONIC into it every
/// 20–40 ms. On a shared virtual machine this floor, not the controls, sets the tail.
enum WakeFloor {
    static func measure(samples: Int) async -> [UInt64] {
        await withCheckedContinuation { continuation in
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0 else { return continuation.resume(returning: [0]) }
            let (readEnd, writeEnd) = (fds[0], fds[1])
            WorkerThread.detached(name: "bench-reader", priority: .realtime(10)) {
                var out: [UInt64] = []
                var p = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
                var stamp: UInt64 = 0
                while poll(&p, 1, -1) >= 0, read(readEnd, &stamp, 8) == 8 {
                    out.append(MonotonicClock.nanoseconds() - stamp)
                }
                close(readEnd)
                continuation.resume(returning: out.isEmpty ? [0] : out)
            }
            WorkerThread.detached(name: "bench-writer", priority: .realtime(20)) {
                for _ in 0..<samples {
                    var now = MonotonicClock.nanoseconds()
                    _ = write(writeEnd, &now, 8)
                    usleep(UInt32(20_000 + Int.random(in: 0..<20_000)))
                }
                close(writeEnd)
            }
        }
    }
}
