import AudioCore
import Foundation

/// The loads themselves: each opens its own connection(s) first, so connecting is not timed.
extension Scenario {
    func load(port: Int, uris: [String]) -> LoadOutcome {
        do {
            switch self {
            case .addAllWarm, .addAllCold:
                return try single(port: port, request: "add \"/\"")
            case .manyAdds:
                let list = ["command_list_begin"] + (0..<10_000).map { "add \(quoted(uris[$0 % uris.count]))" }
                    + ["command_list_end"]
                return try single(port: port, request: list.joined(separator: "\n"))
            case .longSearchTwice:
                return try concurrent(port: port, clients: 2, request: "search any \"\(String(repeating: "a", count: 8000))\"")
            case .listAllInfoFlood:
                let list = ["command_list_begin"] + Array(repeating: "listallinfo", count: 200) + ["command_list_end"]
                return try flood(port: port, request: list.joined(separator: "\n"))
            }
        } catch {
            return LoadOutcome(seconds: .nan, note: "could not connect: \(error)", failed: true)
        }
    }

    /// One request on one connection; anything but `OK` is a failure.
    private func single(port: Int, request: String) throws -> LoadOutcome {
        let connection = try MPDConnection(port: port)
        let start = MonotonicClock.seconds()
        let sent = connection.send(request)
        let answer = connection.read(collect: false, timeout: timeout)
        let seconds = MonotonicClock.seconds() - start
        guard answer.end == .ok else {
            return LoadOutcome(seconds: seconds, note: describe(answer.end, sent: sent), failed: true,
                               timedOut: answer.end == .timedOut)
        }
        return LoadOutcome(seconds: seconds)
    }

    /// The same request from `clients` connections at once; the time runs until the last answer.
    private func concurrent(port: Int, clients: Int, request: String) throws -> LoadOutcome {
        let connections = try (0..<clients).map { _ in ConnectionBox(try MPDConnection(port: port)) }
        let gate = StartGate(parties: clients)
        let limit = timeout
        let workers = connections.enumerated().map { index, box in
            BackgroundWork(name: "hostile-\(index)") { () -> (end: MPDConnection.End, sent: Bool, finished: Double) in
                let connection = box.take()
                gate.arriveAndWait()
                let sent = connection.send(request)
                let answer = connection.read(collect: false, timeout: limit)
                return (answer.end, sent, MonotonicClock.seconds())
            }
        }
        let start = gate.openedAt()
        let results = workers.map { $0.join() }
        let seconds = (results.map(\.finished).max() ?? start) - start
        let refusals = results.filter { if case .ack = $0.end { acceptsRefusal } else { false } }
        let failures = results.filter { result in
            if case .ack = result.end, acceptsRefusal { return false }
            return result.end != .ok
        }.map { describe($0.end, sent: $0.sent) }
        if failures.isEmpty, let refusal = refusals.first {
            return LoadOutcome(seconds: seconds, note: "\(refusals.count) of \(clients) refused: " + describe(refusal.end, sent: refusal.sent))
        }
        guard failures.isEmpty else {
            return LoadOutcome(seconds: seconds, note: "\(failures.count) of \(clients): " + failures[0], failed: true,
                               timedOut: results.contains { $0.end == .timedOut })
        }
        return LoadOutcome(seconds: seconds)
    }

    /// A request whose answer is hundreds of megabytes, read as fast as possible and counted; the server closing
    /// the connection at its output limit is an expected end, recorded with the bytes that came first.
    private func flood(port: Int, request: String) throws -> LoadOutcome {
        let connection = try MPDConnection(port: port)
        let start = MonotonicClock.seconds()
        connection.send(request)
        let answer = connection.read(collect: false, timeout: timeout)
        let seconds = MonotonicClock.seconds() - start
        let size = answer.bytes < 100_000 ? "\(answer.bytes) bytes" : String(format: "%.1f MB", Double(answer.bytes) / 1e6)
        switch answer.end {
        case .ok: return LoadOutcome(seconds: seconds, note: "answered in full: \(size)")
        case .closed: return LoadOutcome(seconds: seconds, note: "dropped after \(size)")
        case .ack(let line): return LoadOutcome(seconds: seconds, note: "\(line) after \(size)", failed: true)
        case .timedOut: return LoadOutcome(seconds: seconds, note: "no end after \(Int(timeout)) s (\(size))", failed: true,
                                             timedOut: true)
        }
    }

    private func describe(_ end: MPDConnection.End, sent: Bool) -> String {
        let written = sent ? "" : " (the request could not be written whole)"
        switch end {
        case .ok: return "OK"
        case .ack(let line): return line + written
        case .closed: return "connection closed by the daemon" + written
        case .timedOut: return "no answer after \(Int(timeout)) s" + written
        }
    }
}

/// A URI as an MPD argument: quoted, with `"` and `\` escaped.
func quoted(_ text: String) -> String {
    "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
}

/// Lets several threads start a request at the same moment: each waits until all have arrived.
/// Threads: any; `openedAt` from the thread that created it.
final class StartGate: Sendable {
    private let parties: Int
    private let arrived = DispatchSemaphore(value: 0)
    private let open = DispatchSemaphore(value: 0)

    init(parties: Int) { self.parties = parties }

    func arriveAndWait() {
        arrived.signal()
        open.wait()
    }

    /// Waits for every party, opens the gate and returns the moment it opened.
    func openedAt() -> Double {
        for _ in 0..<parties { arrived.wait() }
        let now = MonotonicClock.seconds()
        for _ in 0..<parties { open.signal() }
        return now
    }
}
