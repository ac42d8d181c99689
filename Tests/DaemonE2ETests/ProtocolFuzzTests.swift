import Foundation
import Testing
import TestSupport

/// Issue 13's protocol fuzz suite: the generated hostile corpus (`ProtocolFuzzCorpus`) sent to a real `fermatad`
/// while it plays, batch after batch; after each batch the daemon must run, answer another client's `status` promptly,
/// and keep its queue and database intact. A daemon that dies is reported with the lines that killed it and restarted,
/// so one run names every crashing line.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct ProtocolFuzzTests {
    @Test func corpusCoversEveryCommandAndTheKnownCrashLines() {
        let batches = ProtocolFuzzCorpus.batches()
        let lines = batches.flatMap(\.units).flatMap(\.lines)
        let texts = Set(lines.map { String(decoding: $0.bytes, as: UTF8.self) })
        for line in ProtocolFuzzCorpus.knownCrashLines { #expect(texts.contains(line), "\(line) is not in the corpus") }
        let names = Set(lines.map(\.name))
        for name in ProtocolFuzzCorpus.commandNames {
            #expect(ProtocolFuzzCorpus.validArguments[name] != nil, "no valid argument list for \(name)")
            #expect(names.contains(name), "no line for \(name)")
            let withHostile = lines.filter { $0.name == name }.count
            let wanted = min(HostileArgument.classes.count, ProtocolFuzzCorpus.rations[name] ?? .max)
            #expect(withHostile >= wanted, "\(name): \(withHostile) lines")
        }
        #expect(!names.contains("kill"))
        #expect(batches.flatMap(\.units).contains { if case .list = $0 { true } else { false } }, "command lists")
        let oversized = ProtocolFuzzCorpus.oversizedLists.flatMap(\.units).map(\.lines.count)
        #expect(oversized == [ProtocolFuzzCorpus.listAllInfoCount, ProtocolFuzzCorpus.playlistInfoCount])
        // The seed fixes the corpus; another seed gives another one.
        #expect(ProtocolFuzzCorpus.batches().flatMap(\.units) == batches.flatMap(\.units))
        #expect(ProtocolFuzzCorpus.batches(seed: 1).flatMap(\.units) != batches.flatMap(\.units))
    }

    @Test func hostileLinesWhilePlaying() async throws {
        let clock = ContinuousClock()
        let began = clock.now
        var run = FuzzRun(batches: ProtocolFuzzCorpus.batches(), oversized: ProtocolFuzzCorpus.oversizedLists)
        var cursor = FuzzCursor(batch: 0, unit: 0)
        var restarts = 0
        while true {
            let (start, before) = (cursor, run)
            let (after, end) = try await Daemon.with { daemon async throws in
                try await onThread { () throws -> (FuzzRun, FuzzSessionEnd?) in
                    var run = before
                    do {
                        try run.session(on: daemon, from: start)
                        return (run, nil)
                    } catch let end as FuzzSessionEnd {
                        return (run, end)
                    }
                }
            }
            run = after
            guard let end else { break }
            // The daemon died or hung (recorded as a finding); a fresh one takes the rest of the corpus.
            cursor = end.resumeAt
            restarts += 1
            if restarts > FuzzRun.maxRestarts {
                Issue.record("more than \(FuzzRun.maxRestarts) daemon restarts: the rest of the corpus was not sent")
                break
            }
        }
        let seconds = Double((clock.now - began).components.seconds)
        print(run.summary(restarts: restarts, seconds: seconds))
        for finding in run.findings { Issue.record(Comment(rawValue: finding.description)) }
    }
}
