import AudioCore
import CGPIOShim
import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Where the controls read edges from.
public enum ControlsInput: Sendable {
    /// libgpiod: the keymap's lines, found by name or chip and offset, requested with their bias and polarity.
    case gpio
    /// 16-byte edge records (see `PipeEdgeSource`) read from a descriptor the service then owns and closes — tests
    /// and benchmarks drive the full service path this way. `userDebounce`: debounce as the v1 API path does.
    case records(fd: Int32, userDebounce: Bool)
}

/// The GPIO thread (`fermata-gpio`): opens the lines and the input devices (`EvdevHub`), then blocks in poll(2) on
/// the line requests' descriptors, the input devices' epoll descriptor, a timerfd and a wake eventfd. The timer is
/// armed only while the engine or a source has a deadline (debounce, long press, repeat, double-press window, an IR
/// scancode's release), so with nobody touching the controls the thread never wakes. Events go out through an
/// `AsyncStream` continuation.
///
/// It is also a `TaskExecutor`: the service consumes the events and calls the player on this thread
/// (`withTaskExecutorPreference`), so an edge reaches the player without waking another thread — at the GPIO
/// thread's SCHED_FIFO priority when granted, not behind whatever else keeps the shared thread pool busy.
///
/// `start` is called once; `stop`, `release` and `enqueue` may be called from any thread. Everything else (sources,
/// engine, timer) lives on the GPIO thread.
final class InputReactor: TaskExecutor, Sendable {
    let keymap: Keymap
    let input: ControlsInput
    let consumer: String
    let realtimePriority: Int
    let logger: Logger
    let reportEdges: Bool
    let continuation: AsyncStream<ControlEvent>.Continuation
    /// What other threads tell the GPIO thread, and the wake eventfd (nil once the thread has closed it).
    private let control: Mutex<Control>

    /// The state behind `control`; only touched under its lock.
    struct Control {
        var wake: Int32?
        var jobs: [UnownedJob] = []
        /// Release the lines and finish the event stream.
        var stopRequested = false
        /// No task uses the thread as its executor any more: run what is queued and exit.
        var released = false
    }

    init(keymap: Keymap, input: ControlsInput, consumer: String, realtimePriority: Int, logger: Logger,
         reportEdges: Bool, continuation: AsyncStream<ControlEvent>.Continuation) {
        self.keymap = keymap
        self.input = input
        self.consumer = consumer
        self.realtimePriority = realtimePriority
        self.logger = logger
        self.reportEdges = reportEdges
        self.continuation = continuation
        let fd = fgpio_wake_create()
        control = Mutex(Control(wake: fd >= 0 ? fd : nil))
    }

    func start() {
        WorkerThread.detached(name: "fermata-gpio") { [self] in main() }
    }

    /// Asks the thread to release the lines and finish the stream (it keeps running queued jobs).
    func stop() {
        control.withLock { state in
            state.stopRequested = true
            if let fd = state.wake { fgpio_wake_signal(fd) }
        }
    }

    /// Lets the thread end once its queued jobs have run: call after the last task preferring it has left.
    func release() {
        control.withLock { state in
            state.stopRequested = true
            state.released = true
            if let fd = state.wake { fgpio_wake_signal(fd) }
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let queued = control.withLock { state in
            guard let fd = state.wake else { return false }
            state.jobs.append(job)
            fgpio_wake_signal(fd)
            return true
        }
        // The thread has already ended (nothing should still prefer it): run the job on the global executor.
        if !queued { job.runSynchronously(on: globalConcurrentExecutor.asUnownedTaskExecutor()) }
    }

    func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    /// Runs the queued jobs (and those they queue). On the GPIO thread.
    func runJobs() {
        while true {
            let batch = control.withLock { state in
                defer { state.jobs.removeAll(keepingCapacity: true) }
                return state.jobs
            }
            if batch.isEmpty { return }
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }

    /// What the loop must do after a wake-up: (stop reading, exit). On the GPIO thread.
    func requests() -> (stop: Bool, exit: Bool) {
        control.withLock { ($0.stopRequested, $0.released) }
    }

    var wakeDescriptor: Int32 { control.withLock { $0.wake } ?? -1 }

    private func main() {
        let sources: [any EdgeSource]
        let userDebounce: Bool
        switch input {
        case .gpio:
            sources = GPIOLineOpener(keymap: keymap, consumer: consumer, logger: logger).open()
                + (keymap.inputs.isEmpty ? [] : [EvdevHub(keymap: keymap, logger: logger)])
            userDebounce = !fgpio_kernel_debounce()
        case let .records(fd, debounce):
            sources = [PipeEdgeSource(fd: fd)]
            userDebounce = debounce
        }
        if realtimePriority > 0, !sources.isEmpty {
            let note = WorkerThread.apply(.realtime(Int32(clamping: realtimePriority)))
            logger.info("controls: GPIO thread at \(note)")
        }
        var levels = Array(repeating: false, count: keymap.lines.count)
        for source in sources {
            for (line, level) in source.levels() where levels.indices.contains(line) { levels[line] = level }
        }
        var engine = ControlEngine(keymap: keymap, userDebounce: userDebounce, levels: levels)
        var opened = sources.reduce(0) { $0 + (($1 as? GPIORequestSource)?.lines.count ?? 0) }
        if case .records = input { opened = keymap.lines.count }
        continuation.yield(.ready(opened: opened, of: keymap.gpioLines.count, at: MonotonicClock.nanoseconds()))
        loop(sources: sources, engine: &engine)
        control.withLock { state in
            if let fd = state.wake { _ = Glibc.close(fd) }
            state.wake = nil
        }
        runJobs()
    }
}
