import Foundation
import TestSupport

/// Where the fuzz run is: the batch (main batches, then the oversized lists) and the unit in it.
struct FuzzCursor: Sendable {
    var batch: Int
    var unit: Int
}

/// Thrown out of a daemon session when the daemon died or stopped answering, so the test starts a fresh one and
/// resumes the corpus after the unit that was being sent.
struct FuzzSessionEnd: Error {
    var resumeAt: FuzzCursor
}

/// What the suite found wrong, with the lines that led to it.
struct FuzzFinding: Sendable, CustomStringConvertible {
    enum Kind: String, Sendable {
        case crash = "fermatad died"
        case stall = "fermatad stopped answering"
        case slowStatus = "status stalled"
        case noAnswer = "no answer"
        case droppedClient = "client dropped"
        case queue = "queue damaged"
        case database = "database damaged"
        case library = "library changed"
        case notPlaying = "playback did not resume"
        case memory = "memory grew"
    }

    var kind: Kind
    var batch: String
    var lines: [String]
    var detail: String

    var description: String {
        "\(kind.rawValue) (\(batch)): \(detail)" + (lines.isEmpty ? "" : "\n  after: " + lines.joined(separator: "\n         "))
    }
}

/// The fuzz run across daemon sessions: sends the batches, checks the daemon after each, collects findings and
/// figures.
///
/// A value: a session runs on a copy inside `onThread`, which hands the copy back (with how the session ended) for
/// the next session and the report.
struct FuzzRun: Sendable {
    static let maxRestarts = 12
    /// Another client's `status` must come back within this, fresh connection included.
    static let statusBudget = Duration.milliseconds(100)
    /// Probes after the first: a loaded CI machine (2 cores shared with other test processes) can deschedule the
    /// daemon or this client for tens of milliseconds, so one slow sample is not a stall. Four in a row over budget,
    /// 50–150 ms apart, are.
    static let statusRetries = 3
    /// Generous, for a debug build on 2 loaded cores: every command of the corpus answers in milliseconds when healthy.
    static let answerTimeout = Duration.seconds(10)
    static let oversizedAnswerTimeout = Duration.seconds(120)
    /// The queue the daemon plays during the fuzz: every fixture track twice (repeat on, so it never runs out).
    static let queueLength = 2 * MusicFixture.tracks.count
    /// Longer queues are cut back to this between batches.
    static let maxQueueLength = 40
    /// VmRSS may grow by less than this across the oversized lists.
    static let memoryBoundKiB = 200 * 1024

    let batches: [FuzzBatch]
    private(set) var findings: [FuzzFinding] = []

    private let clock = ContinuousClock()
    private var linesSent = 0
    private var listLinesSent = 0
    private var listsSent = 0
    private var batchesDone = 0
    private var expectedDrops = 0
    private var worstStatus = Duration.zero
    private var worstSample = Duration.zero
    private var retriedProbes = 0
    private var answeredOK = 0
    private var answeredACK = 0
    private var oversized: [String] = []
    private var slowest: [(Duration, String)] = []
    private var checking = Duration.zero
    private var largestQueue = 0
    private var residentBefore = 0
    private var residentAfter = 0
    private let mainBatchCount: Int

    init(batches: [FuzzBatch], oversized: [FuzzBatch]) {
        self.batches = batches + oversized
        mainBatchCount = batches.count
    }

    // MARK: one daemon

    /// What one daemon session knows: the daemon, its process, the queue as last checked, the last units sent.
    private final class Session {
        let daemon: Daemon
        let process: DaemonProcess
        var library: Set<String> = []
        var queue: [QueueEntry] = []
        var recent: [String] = []
        var residentBefore = 0

        init(daemon: Daemon, process: DaemonProcess) {
            self.daemon = daemon
            self.process = process
        }

        func sent(_ unit: FuzzUnit) {
            recent.append(unit.description)
            if recent.count > 5 { recent.removeFirst() }
        }
    }

    /// One queue entry as `playlistinfo` shows it.
    struct QueueEntry: Equatable {
        var id: String
        var file: String
    }

    /// Sends the batches from `cursor` to `daemon`; throws `FuzzSessionEnd` when the daemon died or hung.
    mutating func session(on daemon: Daemon, from cursor: FuzzCursor) throws {
        var found: DaemonProcess?
        for _ in 0..<250 where found == nil {
            found = DaemonProcess.find(stateDirectory: daemon.state)
            if found == nil { usleep(20_000) }
        }
        guard let process = found else { throw FuzzConnection.Failure(description: "no fermatad process in /proc") }
        let session = Session(daemon: daemon, process: process)
        let check = try checkConnection(session)
        session.library = Set(check.command("listall", deadline: clock.now + Self.answerTimeout).all("file"))
        let fixture = Set(MusicFixture.tracks.map(\.path))
        guard session.library.isSuperset(of: fixture) else {
            throw FuzzConnection.Failure(description: "library \(session.library.sorted()) lacks the fixture")
        }
        try restore(session, batch: "start")

        for index in cursor.batch..<batches.count {
            let batch = batches[index]
            if index >= mainBatchCount && session.residentBefore == 0 {
                session.residentBefore = process.residentKiB
                residentBefore = session.residentBefore
            }
            let first = index == cursor.batch ? cursor.unit : 0
            var executed: [String] = []
            var connection: FuzzConnection?
            for unitIndex in first..<batch.units.count {
                let unit = batch.units[unitIndex]
                session.sent(unit)
                let next = FuzzCursor(batch: unitIndex + 1 < batch.units.count ? index : index + 1,
                                      unit: unitIndex + 1 < batch.units.count ? unitIndex + 1 : 0)
                let sentAt = clock.now
                executed += try send(unit, on: &connection, session, batch: batch.label, resumeAt: next)
                slowest.append((clock.now - sentAt, unit.description))
                slowest.sort { $0.0 > $1.0 }
                if slowest.count > 6 { slowest.removeLast() }
            }
            connection = nil
            let checkedAt = clock.now
            defer { checking += clock.now - checkedAt }
            try checkAfterBatch(session, batch: batch.label, executed: executed,
                                resumeAt: FuzzCursor(batch: index + 1, unit: 0))
            batchesDone += 1
            if index >= mainBatchCount { residentAfter = process.residentKiB }
        }
        if residentBefore > 0 && residentAfter > 0 && residentAfter - residentBefore >= Self.memoryBoundKiB {
            findings.append(FuzzFinding(
                kind: .memory, batch: "oversized command lists", lines: [],
                detail: "VmRSS \(residentBefore / 1024) MiB before, \(residentAfter / 1024) MiB after"))
        }
    }

    /// Sends one unit and reads its answer; returns the names of the commands that may have run (for the queue
    /// check). A dropped connection is reopened for the next unit.
    private mutating func send(
        _ unit: FuzzUnit, on connection: inout FuzzConnection?, _ session: Session, batch: String,
        resumeAt: FuzzCursor
    ) throws -> [String] {
        if connection == nil {
            connection = try? FuzzConnection(port: session.daemon.port, deadline: clock.now + Self.answerTimeout)
            if connection == nil {
                try checkHealth(session, batch: batch, resumeAt: resumeAt)
                connection = try FuzzConnection(port: session.daemon.port, deadline: clock.now + Self.answerTimeout)
            }
        }
        guard let link = connection else { return [] }
        let lines = unit.lines
        linesSent += lines.count
        if case .list = unit {
            listsSent += 1
            listLinesSent += lines.count
        }
        let timeout = lines.count > 100 ? Self.oversizedAnswerTimeout : Self.answerTimeout
        var answer: FuzzConnection.Answer
        if case let .line(line) = unit, line.name == "idle" {
            // An accepted idle waits for a change; noidle ends it (and is ignored when idle had already answered).
            _ = link.send(unit.wire, deadline: clock.now + timeout)
            answer = link.readAnswer(deadline: clock.now + .milliseconds(300), keepPairs: false)
            if answer.ending == .timedOut {
                _ = link.send(Array("noidle\n".utf8), deadline: clock.now + timeout)
                answer = link.readAnswer(deadline: clock.now + timeout, keepPairs: false)
            }
        } else if case let .line(line) = unit, line.bytes == Array("noidle".utf8) {
            // Outside idle MPD ignores noidle without a word; the ping after it shows the connection still works.
            _ = link.send(unit.wire + Array("ping\n".utf8), deadline: clock.now + timeout)
            answer = link.readAnswer(deadline: clock.now + timeout, keepPairs: false)
        } else {
            _ = link.send(unit.wire, deadline: clock.now + timeout)
            answer = link.readAnswer(deadline: clock.now + timeout, keepPairs: false)
        }
        if lines.count > 100 {
            oversized.append("\(unit.description): \(Self.describe(answer.ending)) after \(answer.bytes / 1024) KiB")
        }
        switch answer.ending {
        case .ok: answeredOK += 1
        case .ack: answeredACK += 1
        case .closed, .timedOut: break
        }

        let names = lines.map(\.name)
        switch answer.ending {
        case .ok:
            if unit.mayCloseConnection { connection = nil }
            return names
        case .ack:
            if unit.mayCloseConnection { connection = nil }
            if case .line = unit { return [] }
            return Array(names.prefix(answer.ackIndex ?? names.count))
        case .closed:
            connection = nil
            // MPD drops a client whose answer outgrows its output buffer: allowed for the oversized lists.
            if unit.mayCloseConnection || lines.count > 100 {
                expectedDrops += 1
                return names
            }
            try checkHealth(session, batch: batch, resumeAt: resumeAt)
            findings.append(FuzzFinding(kind: .droppedClient, batch: batch, lines: session.recent,
                                        detail: "the connection closed without an answer (the daemon runs on)"))
            return names
        case .timedOut:
            connection = nil
            try checkHealth(session, batch: batch, resumeAt: resumeAt)
            findings.append(FuzzFinding(kind: .noAnswer, batch: batch, lines: session.recent,
                                        detail: "no answer within \(timeout) (other clients are served)"))
            return names
        }
    }

    // MARK: checks

    /// The daemon runs and another client gets `status` within the budget (retried, see `statusRetries`). A dead
    /// or hung daemon is recorded and ends the session.
    private mutating func checkHealth(_ session: Session, batch: String, resumeAt: FuzzCursor) throws {
        guard session.process.isAlive else { try died(session, batch: batch, resumeAt: resumeAt) }
        var samples: [Duration] = []
        for attempt in 0...Self.statusRetries {
            if attempt > 0 { usleep(UInt32(50_000 * attempt)) }
            let (ok, took) = StatusProbe.attempt(unixPath: session.daemon.socketPath, budget: Self.statusBudget)
            samples.append(took)
            worstSample = max(worstSample, took)
            if ok {
                worstStatus = max(worstStatus, took)
                if attempt > 0 { retriedProbes += 1 }
                return
            }
        }
        let shown = samples.map { "\($0.milliseconds) ms" }.joined(separator: ", ")
        // Over budget every time: slow, hung, or dying (the Swift runtime's backtrace takes a few seconds to write).
        let begin = clock.now
        let deadline = begin + .seconds(20)
        let late = (try? FuzzConnection(unixPath: session.daemon.socketPath, deadline: deadline))?
            .command("status", deadline: deadline)
        if late?.isOK == true {
            findings.append(FuzzFinding(
                kind: .slowStatus, batch: batch, lines: session.recent,
                detail: "status over \(Self.statusBudget) on \(samples.count) tries (\(shown)); then in "
                    + "\((clock.now - begin).milliseconds) ms"))
            return
        }
        if session.process.hasExited(within: 15) { try died(session, batch: batch, resumeAt: resumeAt) }
        findings.append(FuzzFinding(kind: .stall, batch: batch, lines: session.recent,
                                    detail: "no status in 20 s (\(shown) before); log tail:\n" + logTail(session)))
        throw FuzzSessionEnd(resumeAt: resumeAt)
    }

    private mutating func died(_ session: Session, batch: String, resumeAt: FuzzCursor) throws -> Never {
        _ = session.process.hasExited(within: 15)  // let the runtime finish writing its report
        findings.append(FuzzFinding(kind: .crash, batch: batch, lines: session.recent,
                                    detail: "log tail:\n" + logTail(session)))
        throw FuzzSessionEnd(resumeAt: resumeAt)
    }

    private func logTail(_ session: Session) -> String {
        let lines = session.daemon.log.split(separator: "\n").suffix(14)
        return lines.map { "    " + $0.prefix(300) }.joined(separator: "\n")
    }

    /// After a batch: health, the queue (well-formed, agreeing with status, nothing lost that no executed command
    /// removes), the library, `PRAGMA integrity_check`; then the playing state is restored for the next batch.
    private mutating func checkAfterBatch(_ session: Session, batch: String, executed: [String], resumeAt: FuzzCursor) throws {
        try checkHealth(session, batch: batch, resumeAt: resumeAt)
        let check = try checkConnection(session)
        let before = session.queue
        if let queue = readQueue(session, check, batch: batch) {
            let names = Set(executed)
            let edits = names.intersection(Self.queueEditors)
            let removals = names.intersection(Self.queueRemovers)
            if edits.isEmpty && queue != before {
                findings.append(FuzzFinding(
                    kind: .queue, batch: batch, lines: [],
                    detail: "no command that edits the queue ran, yet it changed from \(Self.show(before)) to "
                        + Self.show(queue)))
            } else if removals.isEmpty, let lost = before.first(where: { !queue.contains($0) }) {
                findings.append(FuzzFinding(
                    kind: .queue, batch: batch, lines: [],
                    detail: "entry \(lost.id) (\(lost.file)) disappeared though only \(edits.sorted()) ran"))
            }
        }
        var library: Set<String> = []
        let libraryDeadline = clock.now + .seconds(5)  // a rescan the batch started may still be writing
        repeat {
            library = Set(check.command("listall", deadline: clock.now + Self.answerTimeout).all("file"))
            if library != session.library { usleep(100_000) }
        } while library != session.library && clock.now < libraryDeadline
        if library != session.library {
            findings.append(FuzzFinding(kind: .library, batch: batch, lines: [],
                                        detail: "listall \(library.sorted()), was \(session.library.sorted())"))
            session.library = library
        }
        let integrity = (try? session.process.integrityCheck()) ?? "sqlite3 did not run"
        if integrity != "ok" {
            findings.append(FuzzFinding(kind: .database, batch: batch, lines: [], detail: integrity))
        }
        try restore(session, batch: batch)
    }

    /// Commands that may change the queue, and those of them that may remove entries (consume: the player does).
    /// `cardread` of a card bound to music replaces the queue with it, as the card reader does (the corpus binds one
    /// with `cardlearn`/`cardassign`).
    static let queueEditors: Set<String> = [
        "add", "addid", "cardread", "clear", "consume", "delete", "deleteid", "findadd", "load", "move", "moveid",
        "rangeid", "searchadd", "section_queue", "shuffle", "swap", "swapid",
    ]
    static let queueRemovers: Set<String> = ["cardread", "clear", "consume", "delete", "deleteid"]

    private static func show(_ queue: [QueueEntry]) -> String {
        "[" + queue.map { "\($0.id):\($0.file.split(separator: "/").last ?? "")" }.joined(separator: " ") + "]"
    }

    /// The queue by `playlistinfo` between two `status` reads of the same playlist version; nil (and a finding)
    /// when it is malformed or disagrees with status.
    private mutating func readQueue(_ session: Session, _ check: FuzzConnection, batch: String) -> [QueueEntry]? {
        var problem = "the playlist version never held still"
        for _ in 0..<5 {
            let deadline = clock.now + Self.answerTimeout
            let status = check.command("status", deadline: deadline)
            let info = check.command("playlistinfo", deadline: deadline)
            let again = check.command("status", deadline: deadline)
            guard status.isOK, info.isOK, again.isOK else {
                problem = "status/playlistinfo refused: \(status.ending) \(info.ending) \(again.ending)"
                continue
            }
            guard status["playlist"] == again["playlist"] else { continue }
            var entries: [QueueEntry] = []
            var positions: [String] = []
            for (key, value) in info.pairs {
                switch key {
                case "file": entries.append(QueueEntry(id: "", file: value))
                case "Id" where !entries.isEmpty: entries[entries.count - 1].id = value
                case "Pos" where !entries.isEmpty: positions.append(value)
                default: break
                }
            }
            let length = Int(status["playlistlength"] ?? "")
            if length != entries.count {
                problem = "status playlistlength \(status["playlistlength"] ?? "none"), playlistinfo \(entries.count)"
            } else if positions != entries.indices.map(String.init) {
                problem = "positions \(positions)"
            } else if entries.contains(where: { $0.id.isEmpty }) || Set(entries.map(\.id)).count != entries.count {
                problem = "ids missing or repeated: \(entries.map(\.id))"
            } else if let stranger = entries.first(where: { !session.library.contains($0.file) }) {
                problem = "queued \(stranger.file.debugDescription), which is not in the library"
            } else {
                return entries
            }
            break
        }
        findings.append(FuzzFinding(kind: .queue, batch: batch, lines: [], detail: problem))
        return nil
    }

    /// Puts the daemon back in a known playing state: modes off (repeat on), output on, no loop, normal tempo, the
    /// queue refilled to `queueLength`, playing. Records the queue as the next batch's starting point.
    private mutating func restore(_ session: Session, batch: String) throws {
        let check = try checkConnection(session)
        let deadline = clock.now + Self.answerTimeout
        for line in ["consume 0", "random 0", "single 0", "repeat 1", "enableoutput 0", "loop_clear", "count_in off",
                     "speed_trainer off", "tempo 100", "setvol 100", "crossfade 0"] {
            _ = check.command(line, deadline: deadline)
        }
        var length = Int(check.command("status", deadline: deadline)["playlistlength"] ?? "") ?? 0
        largestQueue = max(largestQueue, length)
        if length > Self.maxQueueLength {
            // `save NAME append` then `load NAME` doubles the queue; keep the checks' reads small.
            _ = check.command("delete \(Self.maxQueueLength):", deadline: deadline)
            length = Int(check.command("status", deadline: deadline)["playlistlength"] ?? "") ?? 0
        }
        while length < Self.queueLength {
            let track = MusicFixture.tracks[length % MusicFixture.tracks.count]
            guard check.command("add \"\(track.path)\"", deadline: deadline).isOK else { break }
            length += 1
        }
        if check.command("status", deadline: deadline)["state"] != "play" {
            _ = check.command("play", deadline: deadline)
        }
        var state = check.command("status", deadline: deadline)["state"]
        let playDeadline = clock.now + .seconds(3)
        while state != "play" && clock.now < playDeadline {
            usleep(50_000)
            state = check.command("status", deadline: clock.now + Self.answerTimeout)["state"]
        }
        if state != "play" {
            findings.append(FuzzFinding(kind: .notPlaying, batch: batch, lines: session.recent,
                                        detail: "state \(state ?? "unknown") 3 s after play"))
        }
        session.queue = readQueue(session, check, batch: batch) ?? []
    }

    private static func describe(_ ending: FuzzConnection.Ending) -> String {
        switch ending {
        case .ok: "OK"
        case let .ack(line): line
        case .closed: "client dropped"
        case .timedOut: "no answer"
        }
    }

    private func checkConnection(_ session: Session) throws -> FuzzConnection {
        try FuzzConnection(port: session.daemon.port, deadline: clock.now + Self.answerTimeout)
    }

    // MARK: report

    func summary(restarts: Int, seconds: Double) -> String {
        func ms(_ duration: Duration) -> String {
            String(format: "%.1f ms", Double(duration.components.attoseconds) / 1e15
                   + Double(duration.components.seconds) * 1_000)
        }
        return "protocol fuzz: \(ProtocolFuzzCorpus.commandNames.count) commands × \(linesSent) lines sent "
            + "(\(listLinesSent) in \(listsSent) command lists; \(answeredOK) OK, \(answeredACK) ACK), "
            + "\(batchesDone) batches, worst status latency "
            + "\(ms(worstStatus)) (worst single probe \(ms(worstSample)), \(retriedProbes) probes retried), "
            + "\(expectedDrops) connections closed as MPD does, queue up to \(largestQueue) entries, VmRSS \(residentBefore / 1024) → "
            + "\(residentAfter / 1024) MiB around the oversized lists, \(restarts) daemon restarts, "
            + "\(findings.count) findings, \(Int(seconds)) s (\(checking.milliseconds / 1000) s checking); "
            + oversized.joined(separator: "; ") + "\nslowest units: "
            + slowest.map { "\($0.0.milliseconds) ms \($0.1.prefix(100))" }.joined(separator: "; ")
    }
}
