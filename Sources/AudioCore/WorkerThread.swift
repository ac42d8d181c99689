import CThreadShim
import Glibc
import Synchronization

/// A dedicated POSIX thread for audio work (the output thread, the decoder thread).
///
/// `start` runs `body` on a new joinable pthread named `name`. With `realtimePriority` the thread asks for
/// SCHED_FIFO at that priority (the buffers it touches are locked by their owners, not the whole process: mlockall
/// would make every thread stack resident); if refused (no CAP_SYS_NICE / RLIMIT_RTPRIO) it carries
/// on at normal priority and records the reason in `schedulingNote`.
/// Threads: `start` and `join` are called by the owner; `schedulingNote` may be read from any thread, and is final
/// once `start` has returned (`start` waits for the new thread to report how its request went).
public final class AudioThread: Sendable {
    /// What the new thread needs, and its one report back. Handed over through `pthread_create`'s argument; the
    /// new thread writes `note` before ringing `reported`, the owner reads it only after that ring.
    private final class Launch {
        let body: () -> Void
        let name: String
        let priority: Int32?
        let reported = Doorbell()
        var note = ""
        init(body: @escaping () -> Void, name: String, priority: Int32?) {
            self.body = body
            self.name = name
            self.priority = priority
        }
    }

    private struct State {
        var started = false
        var thread: pthread_t?
        var note = "normal priority"
    }

    private let state = Mutex(State())

    /// How the scheduling request went, e.g. "SCHED_FIFO 40" or "normal priority (SCHED_FIFO refused: ...)".
    public var schedulingNote: String { state.withLock { $0.note } }

    public init() {}

    /// Starts the thread and returns once it has applied (or been refused) its scheduling. Call once.
    public func start(name: String, realtimePriority: Int32? = nil, body: @escaping () -> Void) {
        state.withLock { state in
            precondition(!state.started, "AudioThread started twice")
            state.started = true
        }
        let launch = Launch(body: body, name: name, priority: realtimePriority)
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { raw in
            let launch = Unmanaged<Launch>.fromOpaque(raw!).takeRetainedValue()
            fermata_set_thread_name(launch.name)
            launch.note = launch.priority.map(AudioThread.requestFIFO) ?? "normal priority"
            let body = launch.body
            launch.reported.ring()
            body()
            return nil
        }, Unmanaged.passRetained(launch).toOpaque())
        precondition(result == 0, "pthread_create failed: \(result)")
        launch.reported.wait()
        let note = launch.note
        state.withLock { state in
            state.thread = thread
            state.note = note
        }
    }

    /// Waits for the thread's body to return.
    public func join() {
        let thread = state.withLock { state -> pthread_t? in
            defer { state.thread = nil; state.started = false }
            return state.thread
        }
        guard let thread else { return }
        pthread_join(thread, nil)
    }

    private static func requestFIFO(_ priority: Int32) -> String {
        var param = sched_param()
        param.sched_priority = priority
        let result = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param)
        guard result == 0 else {
            return "normal priority (SCHED_FIFO \(priority) refused: \(String(cString: strerror(result))))"
        }
        return "SCHED_FIFO \(priority)"
    }
}
