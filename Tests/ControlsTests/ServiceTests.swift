@testable import Controls
import AudioCore
import FermataCore
import Foundation
import Logging
import Synchronization
import Testing
import TestSupport

/// A player that records what it was asked, in order.
actor RecordingPlayer: PlayerControl {
    var performed: [ControlAction] = []
    var current = PlayerStatus()

    func perform(_ action: ControlAction) async throws {
        performed.append(action)
        if case let .setRepeat(mode) = action { current.repeatMode = mode }
        if action == .next { throw CancellationError() }
    }

    func status() async -> PlayerStatus { current }
}

/// The whole service path (GPIO thread, poll, timerfd, engine, stream, delivery) driven through edge records on a pipe.
@Suite struct ServiceTests {
    static func pipeDescriptors() -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        precondition(pipe(&fds) == 0)
        return (fds[0], fds[1])
    }

    /// Writes each record when its time comes, as a line request would deliver it (so timers fire for real) — from
    /// a thread of its own: a task on the shared pool can be held up for seconds while other suites run, and a
    /// release written that late is, to the service, a button held down that long.
    static func write(_ fd: Int32, _ edges: [RawEdge]) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                for edge in edges {
                    let now = MonotonicClock.nanoseconds()
                    if edge.time > now { usleep(UInt32((edge.time - now) / 1000)) }
                    let bytes = PipeEdgeSource.record(edge)
                    _ = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
                }
                done.resume()
            }.start()
        }
    }

    @Test
    func actionsReachThePlayerInOrderAndShutdownStopsTheThread() async throws {
        var config = try Replay.profile("generic-40pin").controls
        config.realtimePriority = 0  // ordinary scheduling is enough here; spare the suites running alongside
        let keymap = Keymap(config)
        let line = { (name: String) in keymap.lines.firstIndex { $0.ref == .name(name) }! }
        let (readEnd, writeEnd) = Self.pipeDescriptors()
        let player = RecordingPlayer()
        let seen = Mutex<[ControlEvent]>([])
        let extra = Mutex<[KeyAction]>([])
        let service = GPIOInputService(
            config: config, player: player, logger: Logger(label: "test"),
            input: .records(fd: readEnd, userDebounce: true),
            extraActions: { action in extra.withLock { $0.append(action) } },
            observer: { event in seen.withLock { $0.append(event) } })
        let task = Task { try await service.run() }
        // Edge times near now, so the timer deadlines (debounce, long press) are real and short.
        let t0 = MonotonicClock.nanoseconds()
        let ms: UInt64 = 1_000_000
        await Self.write(writeEnd, [
            RawEdge(line: line("GPIO13"), level: true, time: t0), // mode: repeat-cycle on release
            RawEdge(line: line("GPIO13"), level: false, time: t0 + 60 * ms),
            RawEdge(line: line("GPIO13"), level: true, time: t0 + 130 * ms), // again
            RawEdge(line: line("GPIO13"), level: false, time: t0 + 190 * ms),
            RawEdge(line: line("GPIO27"), level: true, time: t0 + 250 * ms), // push: long → announce
            RawEdge(line: line("GPIO27"), level: false, time: t0 + 900 * ms),
            RawEdge(line: line("GPIO5"), level: true, time: t0 + 950 * ms), // next: the player throws
            RawEdge(line: line("GPIO5"), level: false, time: t0 + 1000 * ms),
            RawEdge(line: line("GPIO23"), level: true, time: t0 + 1100 * ms), // one detent clockwise
            RawEdge(line: line("GPIO24"), level: true, time: t0 + 1110 * ms),
            RawEdge(line: line("GPIO23"), level: false, time: t0 + 1120 * ms),
            RawEdge(line: line("GPIO24"), level: false, time: t0 + 1130 * ms),
        ])
        let deadline = ContinuousClock.now + Patience.stall  // a hang detector; the service runs on the loaded pool
        while await player.performed.count < 5, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(await player.performed == [.setRepeat(.queue), .setRepeat(.track), .announce(nil), .next,
                                           .changeVolume(by: 2)])
        #expect(extra.withLock { $0 } == [], "every action here is the player's")
        task.cancel()
        try await task.value
        close(writeEnd)
        let events = seen.withLock { $0 }
        #expect(events.first.map { if case .ready = $0 { true } else { false } } == true)
        let actions = events.compactMap { if case let .action(a, s, _) = $0 { "\(a) (\(s))" } else { nil } }
        #expect(actions == ["repeat-cycle (mode press)", "repeat-cycle (mode press)", "announce (push long)",
                            "next (next press)", "volume+2 (volume clockwise)"])
    }

    @Test func withoutGPIOChipsTheServiceSaysSoOnceAndRunsUntilCancelled() async throws {
        guard (try? FileManager.default.contentsOfDirectory(atPath: "/dev"))?.contains(where: {
            $0.hasPrefix("gpiochip")
        }) == false else { return }  // a machine with GPIO chips: covered by the kernel-lab tests
        let logs = LogCollector()
        let service = GPIOInputService(config: try Replay.profile("rpi-4").controls, player: RecordingPlayer(),
                                       logger: Logger(label: "test", factory: { _ in logs }))
        let returned = Mutex(false)
        let task = Task {
            try await service.run()
            returned.withLock { $0 = true }
        }
        // Waits for the service to say it (not a fixed 300 ms, which a loaded machine can exceed), then checks that
        // it is still running: it only ends when cancelled.
        let deadline = ContinuousClock.now + Patience.stall
        while !logs.lines.withLock({ $0.contains { $0.hasPrefix("warning:") } }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(!returned.withLock { $0 }, "the service ended before it was cancelled")
        task.cancel()
        try await task.value
        #expect(logs.lines.withLock { $0 }.filter { !$0.hasPrefix("info:") }
            == ["warning: controls: no GPIO chip (/dev/gpiochip*) on this machine; physical controls are off"])
    }
}
