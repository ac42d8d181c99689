import AudioCore
import Glibc

/// Starts the scan's own threads (the walker, the tag readers, the writer): named, joinable pthreads that lower their
/// own CPU priority, so a scan never competes with playback (the audio threads run at nice 0 or SCHED_FIFO).
///
/// Stateless; called by `Scanner` (and `Library` for the scan's writer thread). The threads never touch the
/// cooperative pool.
enum ScanThread {
    /// Starts `body` on a new thread named `name` at `niceness` (0 = unchanged, 1…19 = lower priority).
    static func start(name: String, niceness: Int32, body: @escaping () -> Void) -> AudioThread {
        let thread = AudioThread()
        thread.start(name: name) {
            lowerPriority(niceness)
            body()
        }
        return thread
    }

    /// Lowers the calling thread's priority. On Linux the nice value is per thread, and `who = 0` names the calling
    /// thread only; raising it back would need privileges, which is why scans use threads of their own.
    static func lowerPriority(_ niceness: Int32) {
        guard niceness > 0 else { return }
        let current = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        if current < niceness { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness) }
    }
}
