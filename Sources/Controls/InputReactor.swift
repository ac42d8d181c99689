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

/// The GPIO thread (`fermata-gpio`): opens the lines, then blocks in poll(2) on the line requests' descriptors, a
/// timerfd and a wake eventfd. The timer is armed only while the engine has a deadline (debounce, long press,
/// repeat, double-press window), so with nobody touching the controls the thread never wakes. Events go out through
/// an `AsyncStream` continuation.
///
/// `start` is called once; `stop` may be called from any thread, any number of times. Everything else (sources,
/// engine, timer) lives on the GPIO thread.
final class InputReactor: Sendable {
    private let keymap: Keymap
    private let input: ControlsInput
    private let consumer: String
    private let realtimePriority: Int
    private let logger: Logger
    private let reportEdges: Bool
    private let continuation: AsyncStream<ControlEvent>.Continuation
    /// The wake eventfd; nil once the thread has closed it.
    private let wake: Mutex<Int32?>

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
        wake = Mutex(fd >= 0 ? fd : nil)
    }

    func start() {
        let thread = Thread { [self] in main() }
        thread.name = "fermata-gpio"
        thread.stackSize = 256 * 1024
        thread.start()
    }

    /// Asks the thread to release the lines and finish the stream.
    func stop() {
        wake.withLock { fd in
            if let fd { fgpio_wake_signal(fd) }
        }
    }

    private func main() {
        fgpio_name_thread("fermata-gpio")
        if realtimePriority > 0, !keymap.lines.isEmpty {
            let refused = fgpio_thread_realtime(Int32(realtimePriority))
            let note = refused == 0 ? "SCHED_FIFO \(realtimePriority)"
                : "normal priority (SCHED_FIFO \(realtimePriority) refused: \(String(cString: strerror(refused))))"
            logger.info("controls: GPIO thread at \(note)")
        }
        let sources: [any EdgeSource]
        let userDebounce: Bool
        switch input {
        case .gpio:
            sources = GPIOLineOpener(keymap: keymap, consumer: consumer, logger: logger).open()
            userDebounce = !fgpio_kernel_debounce()
        case let .records(fd, debounce):
            sources = [PipeEdgeSource(fd: fd)]
            userDebounce = debounce
        }
        var levels = Array(repeating: false, count: keymap.lines.count)
        for source in sources {
            for (line, level) in source.levels() where levels.indices.contains(line) { levels[line] = level }
        }
        var engine = ControlEngine(keymap: keymap, userDebounce: userDebounce, levels: levels)
        var opened = sources.reduce(0) { $0 + (($1 as? GPIORequestSource)?.lines.count ?? 0) }
        if case .records = input { opened = keymap.lines.count }
        continuation.yield(.ready(opened: opened, of: keymap.lines.count, at: monotonicNanoseconds()))
        loop(sources: sources, engine: &engine)
        for source in sources { source.close() }
        wake.withLock { fd in
            if let open = fd { _ = Glibc.close(open) }
            fd = nil
        }
        continuation.finish()
    }

    private func loop(sources: [any EdgeSource], engine: inout ControlEngine) {
        let timer = fgpio_timer_create()
        defer { _ = Glibc.close(timer) }
        // Poll slots: each source descriptor, then the timer, then the wake eventfd.
        let slots = sources.indices.flatMap { s in sources[s].descriptors.indices.map { (source: s, index: $0) } }
        var fds = sources.flatMap(\.descriptors).map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        fds.append(pollfd(fd: timer, events: Int16(POLLIN), revents: 0))
        fds.append(pollfd(fd: wake.withLock { $0 } ?? -1, events: Int16(POLLIN), revents: 0))
        let timerSlot = fds.count - 2
        var armed: UInt64 = 0
        var edges: [RawEdge] = []
        var events: [ControlEvent] = []
        while true {
            let due = engine.deadline ?? 0
            if due != armed {
                Self.arm(timer, at: due)
                armed = due
            }
            if poll(&fds, nfds_t(fds.count), -1) < 0 {
                if errno == EINTR { continue }
                logger.error("controls: poll failed: \(String(cString: strerror(errno))); physical controls stop")
                return
            }
            if fds[fds.count - 1].revents != 0 { return }
            edges.removeAll(keepingCapacity: true)
            for (i, slot) in slots.enumerated() where fds[i].revents != 0 {
                do throws(EdgeSourceError) {
                    guard fds[i].revents & Int16(POLLIN) != 0 else { throw EdgeSourceError(errno: EIO) }
                    try sources[slot.source].read(slot.index, into: &edges)
                } catch {
                    lost(sources[slot.source], errno: error.errno)
                    fds[i].fd = -1
                }
            }
            // Lines on different descriptors: merge by kernel timestamp (stable for equal times).
            for edge in edges.enumerated().sorted(by: { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }) {
                if reportEdges {
                    events.append(.edge(line: keymap.lines[edge.element.line].ref.description,
                                        level: edge.element.level, at: edge.element.time))
                }
                events += engine.edge(line: edge.element.line, level: edge.element.level, at: edge.element.time)
            }
            if fds[timerSlot].revents & Int16(POLLIN) != 0 {
                fgpio_timer_clear(timer)
                armed = 0
                events += engine.advance(to: monotonicNanoseconds())
            }
            for event in events { continuation.yield(event) }
            events.removeAll(keepingCapacity: true)
        }
    }

    /// Arms the one-shot timer at an absolute CLOCK_MONOTONIC time, or disarms it for 0.
    private static func arm(_ timer: Int32, at time: UInt64) {
        _ = fgpio_timer_arm(timer, time)
    }

    private func lost(_ source: any EdgeSource, errno code: Int32) {
        let owners = ((source as? GPIORequestSource)?.lines ?? []).map { keymap.lines[$0].owner }
        let what = owners.isEmpty ? "an edge source" : owners.joined(separator: ", ")
        logger.warning("controls: lost \(what): \(String(cString: strerror(code))); those controls are off")
    }
}
