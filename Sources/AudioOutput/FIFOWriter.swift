import AudioCore
import Glibc

/// Writes raw PCM into a named pipe, as snapserver's `pipe://` source reads it. Creates the FIFO when missing and keeps
/// it open for writing, non-blocking, with a read end of its own (as MPD's fifo output does): a reader then never sees
/// end-of-file between tracks and may come and go. When nothing has been read for 500 ms the reader counts as absent:
/// the writer empties the pipe itself and reports the reader gone, so a reader that comes back hears the present.
///
/// Threads: the tap thread only.
public final class FIFOWriter: TapWriter {
    public let path: String
    private let log: TapLog
    private var fd: Int32 = -1
    private var readEnd: Int32 = -1
    private var lastProgress = 0
    private var stalled = false
    private var nextAttempt = 0
    private var lastProblem = ""
    public var label: String { "FIFO \(path)" }
    public var descriptor: Int32 { fd }

    public init(path: String, log: @escaping TapLog) {
        self.path = path
        self.log = log
        signal(SIGPIPE, SIG_IGN)  // a reader that leaves must give EPIPE, not kill the daemon
    }

    deinit { close() }

    public func service(nowNanoseconds now: Int) -> Bool {
        if fd >= 0 { return true }
        guard now >= nextAttempt else { return false }
        nextAttempt = now + 200_000_000
        var info = stat()
        if stat(path, &info) != 0 {
            if mkfifo(path, 0o644) != 0 && errno != EEXIST {
                report("cannot create the FIFO: \(String(cString: strerror(errno))); retrying")
                nextAttempt = now + 5_000_000_000
                return false
            }
        } else if info.st_mode & S_IFMT != S_IFIFO {
            report("exists and is not a FIFO; remove it or choose another path (audio for it is dropped)")
            nextAttempt = now + 5_000_000_000
            return false
        }
        readEnd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        fd = readEnd < 0 ? -1 : open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            report("cannot open: \(String(cString: strerror(errno)))")
            close()
            return false
        }
        lastProblem = ""
        lastProgress = now
        log("\(label): open (readers may come and go)")
        return true
    }

    public func write(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard fd >= 0 else { return nil }
        let n = Glibc.write(fd, bytes.baseAddress, bytes.count)
        let nanoseconds = Int(truncatingIfNeeded: MonotonicClock.nanoseconds())
        if n > 0 {
            if stalled { log("\(label): a reader is reading") }
            stalled = false
            lastProgress = nanoseconds
            return n
        }
        guard n < 0 && (errno == EAGAIN || errno == EINTR) else {
            report("write failed: \(String(cString: strerror(errno)))")
            close()
            return nil
        }
        guard nanoseconds - lastProgress > 500_000_000 else { return 0 }
        if !stalled { log("\(label): nobody is reading; dropping its audio until someone does") }
        stalled = true
        lastProgress = nanoseconds
        var sink = [UInt8](repeating: 0, count: 65_536)
        while Glibc.read(readEnd, &sink, sink.count) > 0 {}  // stale audio out, so a new reader hears the present
        return nil
    }

    /// Whether a reader has taken data in the last half second.
    public var isReading: Bool { fd >= 0 && !stalled }

    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        if readEnd >= 0 { Glibc.close(readEnd) }
        fd = -1
        readEnd = -1
    }

    private func report(_ problem: String) {
        guard problem != lastProblem else { return }
        lastProblem = problem
        log("\(label): \(problem)")
    }
}
