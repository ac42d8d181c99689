import Foundation
import TestSupport

/// A raw MPD client for the fuzz suite: sends arbitrary bytes (invalid UTF-8, NUL) and reads answers against a
/// deadline (milliseconds matter for the status probe), skipping `binary:` payloads and keeping only what a check
/// needs from huge answers.
///
/// Not thread-safe: one instance is used by one thread (the fuzz runner's, inside `onThread`).
final class FuzzConnection {
    /// How an answer ended.
    enum Ending: Sendable, Equatable {
        case ok
        case ack(String)
        case closed
        case timedOut
    }

    /// One answer: its `key: value` pairs (when kept), how many `list_OK` lines and bytes it had, and how it ended.
    struct Answer: Sendable {
        var pairs: [(key: String, value: String)] = []
        var listOKs = 0
        var bytes = 0
        var ending = Ending.timedOut

        subscript(_ key: String) -> String? { pairs.first { $0.key == key }?.value }
        func all(_ key: String) -> [String] { pairs.filter { $0.key == key }.map(\.value) }
        var isOK: Bool { ending == .ok }
        /// The `ACK` line's command index (`ACK [code@INDEX] …`), when the answer is an ACK.
        var ackIndex: Int? {
            guard case let .ack(line) = ending, let at = line.firstIndex(of: "@"),
                  let close = line[at...].firstIndex(of: "]") else { return nil }
            return Int(line[line.index(after: at)..<close])
        }
    }

    /// Why a connection could not be made or greeted.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0

    /// Connects (TCP to 127.0.0.1:`port`, or the Unix socket `unixPath`) and reads the greeting by `deadline`.
    init(port: Int? = nil, unixPath: String? = nil, deadline: ContinuousClock.Instant) throws {
        do {
            fd = try unixPath.map { try TestSocket.connect(unixPath: $0) } ?? TestSocket.connect(port: port ?? 0)
        } catch { throw Failure(description: "\(error)") }
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        guard let greeting = try? readLine(deadline: deadline) else {
            throw Failure(description: "no greeting by the deadline")
        }
        guard greeting.hasPrefix("OK MPD ") else { throw Failure(description: "greeting \(greeting.debugDescription)") }
    }

    deinit { Glibc.close(fd) }

    /// Sends `bytes` by `deadline`; false when the server closed the connection or did not take them in time.
    func send(_ bytes: [UInt8], deadline: ContinuousClock.Instant) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                offset += sent
            } else if sent < 0 && (errno == EAGAIN || errno == EINTR) {
                guard wait(for: Int16(POLLOUT), deadline: deadline) else { return false }
            } else {
                return false
            }
        }
        return true
    }

    /// Reads one answer (up to `OK`, `ACK …`, the end of the stream, or `deadline`). `keepPairs`: keep its
    /// `key: value` pairs (leave it off for answers of many megabytes).
    func readAnswer(deadline: ContinuousClock.Instant, keepPairs: Bool = true) -> Answer {
        var answer = Answer()
        while true {
            let line: String?
            do { line = try readLine(deadline: deadline) } catch {
                answer.ending = .timedOut
                return answer
            }
            guard let line else {
                answer.ending = .closed
                return answer
            }
            answer.bytes += line.utf8.count + 1
            if line == "OK" {
                answer.ending = .ok
                return answer
            }
            if line.hasPrefix("ACK ") {
                answer.ending = .ack(line)
                return answer
            }
            if line == "list_OK" {
                answer.listOKs += 1
                continue
            }
            let colon = line.range(of: ": ")
            if let colon, line[..<colon.lowerBound] == "binary", let size = Int(line[colon.upperBound...]), size >= 0 {
                // albumart/readpicture: SIZE raw bytes and a newline, which may look like anything.
                guard (try? skip(size + 1, deadline: deadline)) == true else {
                    answer.ending = .closed
                    return answer
                }
                answer.bytes += size + 1
                continue
            }
            if keepPairs, let colon {
                answer.pairs.append((key: String(line[..<colon.lowerBound]), value: String(line[colon.upperBound...])))
            }
        }
    }

    /// Sends one line and reads its answer.
    func command(_ line: String, deadline: ContinuousClock.Instant) -> Answer {
        guard send(Array((line + "\n").utf8), deadline: deadline) else { return Answer(ending: .closed) }
        return readAnswer(deadline: deadline)
    }

    // MARK: reading

    private struct TimedOut: Error {}

    /// The next line without its newline; nil at the end of the stream; throws `TimedOut` at the deadline.
    private func readLine(deadline: ContinuousClock.Instant) throws -> String? {
        var searched = start
        while true {
            if let newline = buffer[searched...].firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[start..<newline], as: UTF8.self)
                start = newline + 1
                compact()
                return line
            }
            searched = buffer.count
            guard try fill(deadline: deadline) else { return nil }
        }
    }

    /// Drops `count` bytes of the stream; false at the end of the stream.
    private func skip(_ count: Int, deadline: ContinuousClock.Instant) throws -> Bool {
        var left = count
        while true {
            let taken = min(left, buffer.count - start)
            start += taken
            left -= taken
            compact()
            if left == 0 { return true }
            guard try fill(deadline: deadline) else { return false }
        }
    }

    /// Reads what the socket has (waiting until `deadline`); false at the end of the stream or on a reset.
    private func fill(deadline: ContinuousClock.Instant) throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer += chunk[..<count]
                return true
            }
            if count == 0 || errno == ECONNRESET { return false }
            guard errno == EAGAIN || errno == EINTR else { return false }
            guard wait(for: Int16(POLLIN), deadline: deadline) else { throw TimedOut() }
        }
    }

    /// Waits until the socket is ready for `events` or `deadline` passes; false at the deadline.
    private func wait(for events: Int16, deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return false }
            let milliseconds = max(1, Int32(min(left.components.seconds * 1_000
                                                    + left.components.attoseconds / 1_000_000_000_000_000, 60_000)))
            var descriptor = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { return true }  // let the read or send report the error
        }
    }

    /// Forgets consumed bytes once they are the larger part of the buffer (keeps huge answers linear).
    private func compact() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 65_536 && start * 2 > buffer.count {
            buffer.removeSubrange(..<start)
            start = 0
        }
    }
}

/// The running `fermatad` seen from outside: found through `/proc` by its `--state` directory (the harness keeps its
/// `Process` private), whether it still runs, its resident memory, and its state database checked with `sqlite3`.
///
/// Immutable; any thread may call it.
struct DaemonProcess: Sendable {
    let pid: pid_t
    let stateDirectory: String

    /// The fermatad child started with `--state stateDirectory`, or nil.
    static func find(stateDirectory: String) -> DaemonProcess? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        for entry in entries {
            guard let pid = pid_t(entry),
                  let raw = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { continue }
            let arguments = raw.split(separator: 0, omittingEmptySubsequences: false).map {
                String(decoding: $0, as: UTF8.self)
            }
            // The program is the first argument, or the second under an emulator that keeps it (qemu-user's
            // binfmt_misc interpreter runs as `qemu-aarch64 /path/fermatad ...`).
            guard arguments.prefix(3).contains(where: { $0.hasSuffix("/fermatad") }),
                  let flag = arguments.firstIndex(of: "--state"), flag + 1 < arguments.count,
                  arguments[flag + 1] == stateDirectory else { continue }
            return DaemonProcess(pid: pid, stateDirectory: stateDirectory)
        }
        return nil
    }

    /// Whether the process runs (exists and is not a zombie waiting for the harness to collect it).
    var isAlive: Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        let state = stat[stat.index(after: close)...].drop { $0 == " " }.first
        return state != "Z" && state != "X"
    }

    /// Waits up to `seconds` for the process to end; true when it has.
    func hasExited(within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while isAlive {
            guard Date() < deadline else { return false }
            usleep(20_000)
        }
        return true
    }

    /// VmRSS in KiB (0 when unreadable).
    var residentKiB: Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// `PRAGMA integrity_check` on `STATE/library.sqlite` through the sqlite3 program, beside the running daemon
    /// (WAL: a reader does not disturb it; `.timeout` rides out a checkpoint). "ok" when intact.
    func integrityCheck() throws -> String {
        let result = try Programs.run("/usr/bin/sqlite3", [
            "-cmd", ".timeout 5000", stateDirectory + "/library.sqlite", "PRAGMA integrity_check",
        ], timeout: 30)
        let text = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        return result.status == 0 ? text : "sqlite3 \(result)"
    }
}

/// One `status` from a fresh connection on the daemon's Unix socket, against a time budget: what "another client
/// is served promptly" means in the fuzz suites.
///
/// Stateless; any thread may call it (it blocks for at most the budget).
enum StatusProbe {
    /// Whether status came back in time, and how long the attempt took (connection and greeting included).
    static func attempt(unixPath: String, budget: Duration) -> (ok: Bool, took: Duration) {
        let clock = ContinuousClock()
        let begin = clock.now
        let deadline = begin + budget
        let answer = (try? FuzzConnection(unixPath: unixPath, deadline: deadline))?.command("status", deadline: deadline)
        let took = clock.now - begin
        return (answer?.isOK == true && took <= budget, took)
    }
}

extension Duration {
    /// Whole milliseconds, for messages.
    var milliseconds: Int { Int(self / .milliseconds(1)) }
}
