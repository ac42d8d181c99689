import Glibc

/// Writes raw PCM into a named pipe, as snapserver's `pipe://` source reads it. Creates the FIFO when missing, opens
/// it non-blocking (no reader: retried every 200 ms, so a reader that appears is picked up at once) and closes it
/// when the reader goes away.
///
/// Threads: the tap thread only.
public final class FIFOWriter: TapWriter {
    public let path: String
    private let log: TapLog
    private var fd: Int32 = -1
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
        fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            if errno != ENXIO { report("cannot open: \(String(cString: strerror(errno)))") }
            return false
        }
        lastProblem = ""
        log("\(label): a reader is connected")
        return true
    }

    public func write(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard fd >= 0 else { return nil }
        let n = Glibc.write(fd, bytes.baseAddress, bytes.count)
        if n >= 0 { return n }
        if errno == EAGAIN || errno == EINTR { return 0 }
        log("\(label): the reader went away (\(String(cString: strerror(errno)))); waiting for a new one")
        Glibc.close(fd)
        fd = -1
        return nil
    }

    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    private func report(_ problem: String) {
        guard problem != lastProblem else { return }
        lastProblem = problem
        log("\(label): \(problem)")
    }
}
