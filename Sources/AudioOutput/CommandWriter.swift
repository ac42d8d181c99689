import Glibc

/// Feeds raw PCM to a command's stdin (`/bin/sh -c COMMAND`, spawned with `posix_spawn`). A command that exits is
/// restarted after a backoff that doubles from 1 s up to 30 s (reset once it has run for 30 s); while it is down the
/// audio for it is dropped.
///
/// Threads: the tap thread only.
public final class CommandWriter: TapWriter {
    public let command: String
    private let log: TapLog
    private var pid: pid_t = 0
    private var fd: Int32 = -1
    private var nextStart = 0
    private var startedAt = 0
    private var backoffSeconds = 1
    public var label: String { "command `\(command)`" }
    public var descriptor: Int32 { fd }
    public var isReading: Bool { fd >= 0 }

    public init(command: String, log: @escaping TapLog) {
        self.command = command
        self.log = log
        signal(SIGPIPE, SIG_IGN)
    }

    deinit { close() }

    public func service(nowNanoseconds now: Int) -> Bool {
        if pid != 0 { reap(now: now) }
        if pid == 0 && now >= nextStart { spawn(now: now) }
        return fd >= 0
    }

    public func write(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard fd >= 0 else { return nil }
        let n = Glibc.write(fd, bytes.baseAddress, bytes.count)
        if n >= 0 { return n }
        if errno == EAGAIN || errno == EINTR { return 0 }
        Glibc.close(fd)  // the command closed its stdin or died; `service` reaps and restarts it
        fd = -1
        return nil
    }

    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
        guard pid != 0 else { return }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<200 where waitpid(pid, &status, WNOHANG) == 0 { usleep(10_000) }
        if waitpid(pid, &status, WNOHANG) == 0 {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
        pid = 0
    }

    private func reap(now: Int) {
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return }
        pid = 0
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
        if now - startedAt > 30_000_000_000 { backoffSeconds = 1 }
        let how = status & 0x7f == 0 ? "exited with status \((status >> 8) & 0xff)" : "was killed by signal \(status & 0x7f)"
        log("\(label) \(how); restarting in \(backoffSeconds) s")
        nextStart = now + backoffSeconds * 1_000_000_000
        backoffSeconds = min(30, backoffSeconds * 2)
    }

    private func spawn(now: Int) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            log("\(label): cannot make a pipe: \(String(cString: strerror(errno)))")
            nextStart = now + 5_000_000_000
            return
        }
        for end in fds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }  // the child gets only its stdin (dup2 clears it)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[0], 0)
        let argv: [UnsafeMutablePointer<CChar>?] = ["/bin/sh", "-c", command].map { $0.withCString { strdup($0) } } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, "/bin/sh", &actions, nil, argv, environ)
        Glibc.close(fds[0])
        guard result == 0 else {
            Glibc.close(fds[1])
            log("\(label): cannot start: \(String(cString: strerror(result)))")
            nextStart = now + 5_000_000_000
            return
        }
        pid = child
        fd = fds[1]
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        startedAt = now
        log("\(label): started (pid \(child))")
    }
}
