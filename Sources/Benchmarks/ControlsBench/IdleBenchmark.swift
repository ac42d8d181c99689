import AudioCore
import Controls
import Foundation
import Logging

/// `idle`: wake-ups per second of the whole process while the controls service runs and nobody touches anything —
/// the context switches of every thread over `--seconds` (default 10), from /proc/self/task/*/status, leaving out
/// the thread that measures. Target: 0 for the controls' thread (`fermata-gpio`). libdispatch's manager thread (the
/// one waiting in epoll) wakes once a second in any Swift process whose global executor has started a worker: its
/// internal workqueue monitor is a permanent 1 s timer (swift-corelibs-libdispatch src/event/workqueue.c); it is
/// reported on its own line.
struct IdleBenchmark {
    let arguments: BenchArguments

    init(_ arguments: BenchArguments) {
        self.arguments = arguments
    }

    func run() async throws {
        let seconds = arguments.int("--seconds", 10)
        let rig = try BenchRig(sim: arguments.sim, lines: 4)
        var config = ControlsConfig()
        config.buttons = [
            ButtonConfig(name: "play", line: rig.line(0), actions: [.press: .togglePause, .longPress: .announce]),
            ButtonConfig(name: "next", line: rig.line(1), actions: [.press: .next, .repeat: .seek(seconds: 10)]),
        ]
        config.encoders = [EncoderConfig(name: "volume", a: rig.line(2), b: rig.line(3), clockwise: .volume(2),
                                         counterClockwise: .volume(-2))]
        let probe = DeliveryProbe()
        let service = GPIOInputService(config: config, player: NullPlayer(), logger: Logger(label: "bench"),
                                       input: rig.input(userDebounce: true), observer: { event in
            if case let .ready(opened, _, at) = event { probe.signal(at: at, edge: UInt64(opened)) }
        })
        let task = Task { try await service.run() }
        defer { task.cancel() }
        // Wait for the service and touch every control once (so a lazily armed timer would show) off the pool.
        let opened: UInt64? = await withCheckedContinuation { continuation in
            WorkerThread.detached(name: "bench-driver") {
                guard let (_, opened) = probe.wait(seconds: 60) else { return continuation.resume(returning: nil) }
                for line in 0..<4 {
                    rig.set(line, pressed: true)
                    usleep(20_000)
                    rig.set(line, pressed: false)
                }
                continuation.resume(returning: opened)
            }
        }
        guard let opened else { throw BenchError(description: "the service did not start") }
        try await Task.sleep(for: .seconds(1))
        let counts = await Self.measure(seconds: seconds)
        let kind = arguments.sim ? "gpio-sim, \(opened) of 4 lines requested" : "pipe records"
        print("idle (\(kind)), \(seconds) s, \(counts.count) threads besides the measuring one:")
        for thread in counts { print("  \(thread.name): \(thread.switches) wake-ups") }
        let gpio = counts.filter { $0.name.hasPrefix("fermata-gpio") }.reduce(0) { $0 + $1.switches }
        let dispatch = counts.filter { $0.name.contains("epoll") }.reduce(0) { $0 + $1.switches }
        let total = counts.reduce(0) { $0 + $1.switches }
        func rate(_ n: Int) -> String { String(format: "%.2f/s", Double(n) / Double(seconds)) }
        print("  controls thread: \(rate(gpio)) (target 0); libdispatch manager: \(rate(dispatch)); "
            + "all others: \(rate(total - gpio - dispatch)); whole process: \(rate(total))")
    }

    /// Context switches per thread (name, count) over `seconds`, measured from a thread that is left out.
    static func measure(seconds: Int) async -> [(name: String, switches: Int)] {
        await withCheckedContinuation { continuation in
            WorkerThread.detached(name: "bench-measure") {
                let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"))?
                    .split(separator: "/").last.map(String.init) ?? ""
                let before = snapshot()
                sleep(UInt32(seconds))
                let after = snapshot()
                let result = after.filter { $0.key != me }.map { tid, value in
                    (name: value.name + " [\(tid)]", switches: value.switches - (before[tid]?.switches ?? 0))
                }.sorted { $0.name < $1.name }
                continuation.resume(returning: result)
            }
        }
    }

    static func snapshot() -> [String: (name: String, switches: Int)] {
        var out: [String: (String, Int)] = [:]
        for tid in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? [] {
            guard let status = try? String(contentsOfFile: "/proc/self/task/\(tid)/status", encoding: .utf8) else {
                continue
            }
            var name = "?", switches = 0
            let wchan = (try? String(contentsOfFile: "/proc/self/task/\(tid)/wchan", encoding: .utf8)) ?? ""
            for line in status.split(separator: "\n") {
                let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2 else { continue }
                if parts[0] == "Name" { name = parts[1] }
                if parts[0].hasSuffix("ctxt_switches") { switches += Int(parts[1]) ?? 0 }
            }
            out[tid] = (wchan.contains("epoll") ? "\(name) (epoll)" : name, switches)
        }
        return out
    }
}
