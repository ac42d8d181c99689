import CThreadShim
import Glibc

/// A dedicated POSIX thread for audio work (the output thread, the decoder thread).
///
/// `start` runs `body` on a new joinable pthread named `name`. With `realtimePriority` the thread asks for
/// SCHED_FIFO at that priority (the buffers it touches are locked by their owners, not the whole process: mlockall
/// would make every thread stack resident); if refused (no CAP_SYS_NICE / RLIMIT_RTPRIO) it carries
/// on at normal priority and records the reason in `schedulingNote`.
/// Threads: `start` and `join` are called by the owner; `schedulingNote` is read after the thread has started.
public final class AudioThread: @unchecked Sendable {
    private final class Box {
        let body: () -> Void
        let name: String
        let priority: Int32?
        let owner: AudioThread
        init(body: @escaping () -> Void, name: String, priority: Int32?, owner: AudioThread) {
            self.body = body
            self.name = name
            self.priority = priority
            self.owner = owner
        }
    }

    private var thread = pthread_t()
    private var started = false
    /// How the scheduling request went, e.g. "SCHED_FIFO 40" or "normal priority (SCHED_FIFO refused: ...)".
    public private(set) var schedulingNote = "normal priority"

    public init() {}

    /// Starts the thread. Call once.
    public func start(name: String, realtimePriority: Int32? = nil, body: @escaping () -> Void) {
        precondition(!started, "AudioThread started twice")
        started = true
        let box = Unmanaged.passRetained(Box(body: body, name: name, priority: realtimePriority, owner: self))
        let result = pthread_create(&thread, nil, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            fermata_set_thread_name(box.name)
            if let priority = box.priority { box.owner.schedulingNote = AudioThread.requestFIFO(priority) }
            box.body()
            return nil
        }, box.toOpaque())
        precondition(result == 0, "pthread_create failed: \(result)")
    }

    /// Waits for the thread's body to return.
    public func join() {
        guard started else { return }
        pthread_join(thread, nil)
        started = false
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
