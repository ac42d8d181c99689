import CThreadShim
import Glibc
import Synchronization

/// The one way Fermata runs work on a thread of its own, off Swift's cooperative pool: the audio threads (output,
/// decoder, events, tap), the scan's walkers, tag readers and coordinator, the watchdog, the GPIO thread. Each is a
/// named POSIX thread with the priority its work calls for (`Priority`).
///
/// `start` runs `body` on a new joinable thread; `detached` on one nobody joins (it ends with its body). A realtime
/// request that is refused (no CAP_SYS_NICE / RLIMIT_RTPRIO) leaves the thread at normal priority and says why in
/// `schedulingNote`; the buffers a realtime thread touches are locked by their owners, not the whole process
/// (mlockall would make every thread stack resident).
/// Threads: `start` and `join` are called by the owner; `schedulingNote` may be read from any thread, and is final
/// once `start` has returned (`start` waits for the new thread to report how its request went).
public final class WorkerThread: Sendable {
    /// How a thread is scheduled.
    public enum Priority: Sendable, Equatable {
        /// The process's own priority.
        case normal
        /// SCHED_FIFO at this priority (1…99) when allowed, else normal priority: the thread that feeds the device.
        case realtime(Int32)
        /// A higher nice value (1…19; 0 or less: unchanged), so the work never competes with playback or the
        /// protocol: a library scan. On Linux the nice value is per thread; raising it back needs privileges.
        case background(niceness: Int32)
    }

    /// What the new thread needs, and its one report back. Handed over through `pthread_create`'s argument; the
    /// new thread writes `note` before ringing `reported`, the owner reads it only after that ring.
    private final class Launch {
        let body: () -> Void
        let name: String
        let priority: Priority
        let reported = Doorbell()
        var note = ""
        init(body: @escaping () -> Void, name: String, priority: Priority) {
            self.body = body
            self.name = name
            self.priority = priority
        }
    }

    private enum State {
        case idle
        case running(pthread_t, note: String)
        case joined(note: String)
    }

    private let state = Mutex(State.idle)

    /// How the scheduling request went, e.g. "SCHED_FIFO 40", "normal priority (SCHED_FIFO refused: ...)", "nice 10".
    public var schedulingNote: String {
        state.withLock { state in
            switch state {
            case .idle: "normal priority"
            case let .running(_, note), let .joined(note): note
            }
        }
    }

    public init() {}

    /// Starts the thread and returns once it has applied (or been refused) its priority. Not while it runs: once
    /// joined, it may be started again.
    public func start(name: String, priority: Priority = .normal, stackBytes: Int? = nil,
                      body: sending @escaping () -> Void) {
        state.withLock { state in
            if case .running = state { preconditionFailure("WorkerThread started twice") }
        }
        let (thread, note) = Self.launch(name: name, priority: priority, stackBytes: stackBytes, detached: false,
                                         body: body)
        state.withLock { $0 = .running(thread, note: note) }
    }

    /// A new thread running `body` (see `start`).
    public static func started(name: String, priority: Priority = .normal,
                               body: sending @escaping () -> Void) -> WorkerThread {
        let thread = WorkerThread()
        thread.start(name: name, priority: priority, body: body)
        return thread
    }

    /// Runs `body` on a new thread that nobody joins; returns once the thread has applied its priority.
    public static func detached(name: String, priority: Priority = .normal, body: sending @escaping () -> Void) {
        _ = launch(name: name, priority: priority, stackBytes: nil, detached: true, body: body)
    }

    /// Waits for the thread's body to return.
    public func join() {
        let thread = state.withLock { state -> pthread_t? in
            guard case let .running(thread, note) = state else { return nil }
            state = .joined(note: note)
            return thread
        }
        guard let thread else { return }
        pthread_join(thread, nil)
    }

    /// Applies `priority` to the calling thread (for a thread that decides once it knows its work, as the GPIO
    /// thread does after opening its lines) and says how it went.
    public static func apply(_ priority: Priority) -> String {
        switch priority {
        case .normal:
            return "normal priority"
        case let .realtime(level):
            var param = sched_param()
            param.sched_priority = level
            let result = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param)
            guard result == 0 else {
                return "normal priority (SCHED_FIFO \(level) refused: \(String(cString: strerror(result))))"
            }
            return "SCHED_FIFO \(level)"
        case let .background(niceness):
            guard niceness > 0 else { return "normal priority" }
            let which = __priority_which_t(PRIO_PROCESS.rawValue)
            let current = getpriority(which, 0)  // who = 0: the calling thread only, on Linux
            if current < niceness { _ = setpriority(which, 0, niceness) }
            return "nice \(max(current, niceness))"
        }
    }

    private static func launch(name: String, priority: Priority, stackBytes: Int?, detached: Bool,
                               body: sending @escaping () -> Void) -> (pthread_t, String) {
        let launch = Launch(body: body, name: name, priority: priority)
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        if let stackBytes { pthread_attr_setstacksize(&attributes, max(stackBytes, Int(PTHREAD_STACK_MIN))) }
        if detached { pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED)) }
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { raw in
            let launch = Unmanaged<Launch>.fromOpaque(raw!).takeRetainedValue()
            fermata_set_thread_name(launch.name)
            launch.note = WorkerThread.apply(launch.priority)
            let body = launch.body
            launch.reported.ring()
            body()
            return nil
        }, Unmanaged.passRetained(launch).toOpaque())
        precondition(result == 0, "pthread_create failed: \(result)")
        launch.reported.wait()
        return (thread, launch.note)
    }
}
