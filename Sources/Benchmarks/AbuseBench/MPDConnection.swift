import AudioCore
import Glibc
import TestSupport

/// One MPD protocol connection as a hostile or measuring client needs it: requests written whole (a 700 KB command
/// list included), answers read to their `OK`/`ACK` line with a deadline, long answers counted instead of kept, and a
/// server that drops the client reported as such rather than as an error.
///
/// Threads: one user at a time (each thread of a scenario opens its own).
final class MPDConnection {
    /// How an answer ended.
    enum End: Equatable {
        case ok
        case ack(String)
        /// The server closed the connection (or reset it) before the answer's last line.
        case closed
        case timedOut
    }

    /// An answer: how it ended, how many bytes it had, and its lines when they were asked for.
    struct Answer {
        var end: End
        var bytes: Int
        var lines: [String]

        /// The value of the first `key: value` line.
        func value(_ key: String) -> String? {
            let prefix = key + ": "
            return lines.first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
        }
    }

    /// A failure to connect, or an answer other than `OK` where one was required.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let fd: Int32
    private let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
    /// Bytes read past the end of the previous answer.
    private var leftover: [UInt8] = []
    /// The current (unfinished) line's first bytes; lines longer than this are only counted.
    private var line: [UInt8] = []
    private static let keptLineBytes = 512

    /// Connects and reads the greeting.
    init(port: Int, greetingTimeout: Double = 10) throws {
        do { fd = try TestSocket.connect(port: port) } catch { throw Failure(description: error.description) }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)  // the read loop checks its deadline at least this often
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var sendTimeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, socklen_t(MemoryLayout<timeval>.size))
        let greeting = read(collect: true, timeout: greetingTimeout, greeting: true)
        guard greeting.end == .ok else { throw Failure(description: "no greeting (\(greeting.end))") }
    }

    deinit {
        close(fd)
        chunk.deallocate()
    }

    /// Writes all of `text`; false when the server closed the connection (or the write timed out).
    @discardableResult
    func send(_ text: String) -> Bool {
        var bytes = Array(text.utf8)
        if bytes.last != 0x0A { bytes.append(0x0A) }
        return bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
    }

    /// Sends one command and reads its answer (lines kept).
    func request(_ command: String, timeout: Double = 30) -> Answer {
        guard send(command) else { return Answer(end: .closed, bytes: 0, lines: []) }
        return read(collect: true, timeout: timeout)
    }

    /// Sends one command; throws unless it is answered `OK`.
    @discardableResult
    func command(_ command: String, timeout: Double = 60) throws -> Answer {
        let answer = request(command, timeout: timeout)
        guard answer.end == .ok else { throw Failure(description: "`\(command.prefix(60))`: \(answer.end)") }
        return answer
    }

    /// Reads one answer: up to its `OK` or `ACK` line, the server closing, or `timeout` seconds. With `collect`
    /// false only the bytes are counted (for answers of hundreds of megabytes).
    func read(collect: Bool, timeout: Double, greeting: Bool = false) -> Answer {
        let deadline = MonotonicClock.seconds() + timeout
        var answer = Answer(end: .timedOut, bytes: 0, lines: [])
        if !leftover.isEmpty {
            let pending = leftover
            leftover = []
            let done = pending.withUnsafeBytes { scan($0, into: &answer, collect: collect, greeting: greeting) }
            if done { return answer }
        }
        while MonotonicClock.seconds() < deadline {
            let n = Glibc.read(fd, chunk.baseAddress, chunk.count)
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { continue }
            if n <= 0 {
                answer.end = .closed
                return answer
            }
            if scan(UnsafeRawBufferPointer(rebasing: chunk[0..<n]), into: &answer, collect: collect, greeting: greeting) {
                return answer
            }
        }
        return answer
    }

    /// Consumes `bytes` line by line; true when the answer's last line was among them (the rest is kept for later).
    private func scan(_ bytes: UnsafeRawBufferPointer, into answer: inout Answer, collect: Bool, greeting: Bool) -> Bool {
        var start = 0
        while start < bytes.count {
            let found = memchr(bytes.baseAddress! + start, 0x0A, bytes.count - start)
            let end = found.map { bytes.baseAddress!.distance(to: UnsafeRawPointer($0)) } ?? bytes.count
            let room = Self.keptLineBytes - line.count
            if room > 0 { line.append(contentsOf: bytes[start..<min(end, start + room)]) }
            answer.bytes += end - start + (found == nil ? 0 : 1)
            start = end + 1
            guard found != nil else { break }
            let text = String(decoding: line, as: UTF8.self)
            line.removeAll(keepingCapacity: true)
            let last = greeting ? text.hasPrefix("OK MPD ") || text.hasPrefix("ACK") : text == "OK" || text.hasPrefix("ACK ")
            if last {
                answer.end = text.hasPrefix("ACK") ? .ack(text) : .ok
                if start < bytes.count { leftover = Array(bytes[start...]) }
                return true
            }
            if collect { answer.lines.append(text) }
        }
        return false
    }
}
