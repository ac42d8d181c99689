import Foundation
import Testing
import TestSupport

/// Hostile regular expressions in filters (`=~`): nested quantifiers backtrack exponentially over a fixture URI
/// (about 35 bytes), so an unbounded matcher works for minutes on one line. The filter commands must answer such a
/// line promptly (MPD's PCRE stops at its match limit; refusing the pattern is as good) and keep serving other clients
/// while several arrive at once (the CI machine has 2 cores, so two stuck matchers could hold every thread).
@Suite(.serialized, .timeLimit(.minutes(10)))
struct ProtocolFuzzRegexTests {
    static let lines = [
        #"find "(file =~ \"(.*.*)*X\")""#,
        #"search "(any =~ \"(.*)*(.*)*(.*)*Z\")""#,
        #"count "(file =~ \"(.*.*)*X\")""#,
        #"playlistfind "(file =~ \"(a|.)*(b|.)*(c|.)*Q\")""#,
    ]
    /// A healthy daemon answers each in milliseconds; 5 s leaves a debug build on 2 loaded cores ample room.
    static let answerTimeout = Duration.seconds(5)

    /// How one pattern's answer ended, and when.
    struct Reading: Sendable {
        var ending: FuzzConnection.Ending
        var took: Duration
    }

    @Test func nestedQuantifiersAreAnsweredPromptly() async throws {
        try await Daemon.with { daemon async throws in
            try await daemon.ok("add \"\(MusicFixture.one.path)\"")
            try await daemon.ok("add \"\(MusicFixture.uno.path)\"")
            try await daemon.ok("repeat 1")
            try await daemon.ok("play")
            let port = daemon.port
            let socketPath = daemon.socketPath
            let (answers, worstStatus, budget) = try await onThread { () throws -> ([Reading], Duration, Duration) in
                let clock = ContinuousClock()
                // The budget follows this machine's speed: 100 ms, or 20 times an idle status where that is slower
                // (an emulated CPU: qemu-user runs the arm64 suites an order of magnitude slower).
                let idle = (0..<5).map { _ in StatusProbe.attempt(unixPath: socketPath, budget: .seconds(5)) }
                    .filter(\.ok).map(\.took).min() ?? .seconds(5)
                let budget = max(Duration.milliseconds(100), idle * 20)
                let connections = try Self.lines.map { _ in
                    try FuzzConnection(port: port, deadline: clock.now + .seconds(10))
                }
                let sent = clock.now
                for (connection, line) in zip(connections, Self.lines) {
                    _ = connection.send(Array((line + "\n").utf8), deadline: sent + .seconds(1))
                }
                // Meanwhile another client's status: each reading is the best of up to four tries (a loaded machine
                // can deschedule the daemon for a moment; four slow tries in a row are a stall).
                var worst = Duration.zero
                while clock.now < sent + .seconds(2) {
                    var best = Duration.seconds(3600)
                    for attempt in 0...3 {
                        let (ok, took) = StatusProbe.attempt(unixPath: socketPath, budget: budget)
                        best = min(best, ok ? took : .seconds(3600))
                        if ok { break }
                        usleep(UInt32(50_000 * (attempt + 1)))
                    }
                    worst = max(worst, best)
                    usleep(200_000)
                }
                let answers = connections.map { connection in
                    Reading(ending: connection.readAnswer(deadline: sent + Self.answerTimeout).ending,
                            took: clock.now - sent)
                }
                return (answers, worst, budget)
            }
            for (line, reading) in zip(Self.lines, answers) {
                #expect(reading.ending != .timedOut && reading.ending != .closed,
                        "\(line): \(reading.ending) after \(reading.took.milliseconds) ms (limit \(Self.answerTimeout))")
            }
            let status = worstStatus > .seconds(60) ? "missed \(budget.milliseconds) ms on four tries in a row"
                : "took \(worstStatus.milliseconds) ms"
            #expect(worstStatus <= budget, "while the patterns ran, another client's status \(status)")
        }
    }
}
