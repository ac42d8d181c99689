import Glibc

/// What reading one file for the library scan may cost: bytes read through `PosixFile`, and the scanning thread's CPU
/// seconds since it began. Past either, the next read throws `.corrupt` ("over its scan budget"), so a damaged or
/// hostile file becomes a scan issue instead of holding a scan thread; the scan goes on with the next file. CPU time,
/// not wall time: a loaded machine that starves the scan thread slows the scan down but never calls a good file bad
/// (10 s of wall time did, under load); a file whose reads stall without working is given `wallFactor` times as long
/// in wall time.
///
/// Per thread: `ScanReader` arms it on its own scanning thread around one file, and `PosixFile.read` charges it
/// there. Threads that never arm it (the decoder thread, the daemon's) are never limited. Not shared across threads.
public struct ReadBudget: Sendable, Hashable {
    public var bytes: Int64
    /// CPU seconds of the scanning thread.
    public var seconds: Double

    /// The scan's default: far above any real file's tags and fingerprint (about 130 KiB and a few milliseconds).
    public static let scan = ReadBudget(bytes: 64 << 20, seconds: 10)
    /// Wall seconds allowed per CPU second (reads that wait, as on a dying card, rather than work).
    public static let wallFactor = 12.0

    public init(bytes: Int64, seconds: Double) {
        self.bytes = bytes
        self.seconds = seconds
    }

    /// The armed budget of this thread, if any.
    final class Account {
        let budget: ReadBudget
        let startCPU: Double
        let startWall: Double
        var spent: Int64 = 0

        init(_ budget: ReadBudget) {
            self.budget = budget
            startCPU = Self.now(CLOCK_THREAD_CPUTIME_ID)
            startWall = Self.now(CLOCK_MONOTONIC)
        }

        static func now(_ clock: clockid_t) -> Double {
            var now = timespec()
            clock_gettime(clock, &now)
            return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
        }

        /// Whether the thread has spent its CPU seconds, or waited `wallFactor` times as long in all.
        var timeIsUp: Bool {
            Self.now(CLOCK_THREAD_CPUTIME_ID) - startCPU > budget.seconds
                || Self.now(CLOCK_MONOTONIC) - startWall > budget.seconds * ReadBudget.wallFactor
        }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in if let pointer { Unmanaged<Account>.fromOpaque(pointer).release() } }
        return key
    }()

    /// Runs `body` with this budget armed on the calling thread.
    func armed<T>(_ body: () throws(DecoderError) -> T) throws(DecoderError) -> T {
        let account = Unmanaged.passRetained(Account(self)).toOpaque()
        pthread_setspecific(Self.key, account)
        defer {
            pthread_setspecific(Self.key, nil)
            Unmanaged<Account>.fromOpaque(account).release()
        }
        return try body()
    }

    /// Counts `bytes` against the calling thread's budget; throws once it is spent (or its time is up).
    static func charge(_ bytes: Int, path: String) throws(DecoderError) {
        guard let pointer = pthread_getspecific(key) else { return }
        let account = Unmanaged<Account>.fromOpaque(pointer).takeUnretainedValue()
        account.spent += Int64(bytes)
        if account.spent > account.budget.bytes {
            throw .corrupt(path: path, reason: "over its scan budget: read \(account.spent >> 20) MiB for its tags and "
                           + "fingerprint (at most \(account.budget.bytes >> 20) MiB)")
        }
        if account.timeIsUp {
            // The budget as written (a Double printed, never converted: nothing here can trap).
            throw .corrupt(path: path, reason: "over its scan budget: reading it took more than "
                           + "\(account.budget.seconds) s of the scan thread's time")
        }
    }
}
