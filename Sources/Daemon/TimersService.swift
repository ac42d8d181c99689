import AudioCore
import FermataCore
import Logging
import MPDProtocol
import ServiceLifecycle

/// The household timers together: the sleep timer, the alarms and idle power-off, as the backend, the web page and
/// the controls reach them. A value (its parts are actors); any task.
public struct HouseholdTimers: Sendable {
    public let sleep: SleepService
    public let alarms: AlarmService
    public let idle: IdleWatch
    /// Wakes the tick at once (a sleep timer just set is watched from now, not from the next second).
    let ticks: TimerTicks

    public init(sleep: SleepService, alarms: AlarmService, idle: IdleWatch, ticks: TimerTicks) {
        self.sleep = sleep
        self.alarms = alarms
        self.idle = idle
        self.ticks = ticks
    }
}

/// The timers' pace: a stream of ticks, one per interval (each tick says how long to the next) and one at once when
/// rung. Coalesced: ticks that pile up while one is handled are one.
///
/// Threads: `ring` from any task; the stream is consumed by `TimersService.run` alone.
public final class TimerTicks: Sendable {
    let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    public init() {
        (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// A tick now.
    public func ring() { continuation.yield() }

    func finish() { continuation.finish() }
}

/// Runs the household timers: ticks the sleep timer (ten times a second while one runs, else once a second), the
/// alarm clock (once a second) and the idle watch; counts every change clients are told of (`idle`: a command, a
/// button or a card that changed something) as activity for the idle watch.
///
/// Threads: `run` is called once by the service group.
public struct TimersService: Service {
    let timers: HouseholdTimers
    let changes: IdleBroadcaster

    public init(timers: HouseholdTimers, changes: IdleBroadcaster) {
        self.timers = timers
        self.changes = changes
    }

    public func run() async throws {
        let (events, sink) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let subscription = changes.subscribe { _ in sink.yield() }
        defer { subscription.cancel() }
        let timers = timers
        await timers.alarms.start()
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await _ in events { await timers.idle.activity() }
            }
            group.addTask {
                // One pending wake-up at a time: each tick replaces it (a ring comes between, not beside).
                var next: Task<Void, Never>?
                for await _ in timers.ticks.stream {
                    next?.cancel()
                    let wait = await timers.sleep.tick()
                    await timers.alarms.tick(monotonic: MonotonicClock.nanoseconds())
                    await timers.idle.tick()
                    next = Task {
                        try? await Task.sleep(for: wait)
                        if !Task.isCancelled { timers.ticks.ring() }
                    }
                }
                next?.cancel()
            }
            timers.ticks.ring()
            try? await gracefulShutdown()
            sink.finish()
            timers.ticks.finish()
            group.cancelAll()
        }
    }
}
