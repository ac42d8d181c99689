import Foundation
import Glibc
import Testing
import TestSupport

/// The durability property, over random command sequences: after any acknowledged command, SIGKILL and a restart give
/// back the acknowledged state — transport, song, modes, volume, loop and tempo — and a position within 2.5 s. Each
/// round sends a few random commands (transport, seeks, modes, volume, tempo, loops, queue edits), reads the state
/// the daemon acknowledged, kills it at once and compares after the restart. A fixed seed in the test command;
/// `FERMATA_DURABILITY_ROUNDS` and `FERMATA_DURABILITY_SEED` run longer campaigns.
@Suite(.serialized) struct DurabilityPropertyTests {
    static let trackSeconds = 60
    static let rounds = ProcessInfo.processInfo.environment["FERMATA_DURABILITY_ROUNDS"].flatMap(Int.init) ?? 12
    static let seed = ProcessInfo.processInfo.environment["FERMATA_DURABILITY_SEED"].flatMap(UInt64.init) ?? 27

    /// The fields compared after a restart (the position is compared apart, within 2.5 s).
    static let statusFields = ["state", "song", "songid", "repeat", "random", "single", "consume", "volume",
                               "playlistlength"]
    static let loopFields = ["loop_start", "loop_end", "loop_repeat", "tempo"]

    @Test func everyAcknowledgedStateSurvivesAKill() async throws {
        let dir = try TemporaryDirectory(prefix: "fermata-durability")
        let music = dir.file("music")
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        var uris: [String] = []
        for track in 0..<5 {
            let uri = "t\(track).flac"
            let signal = TestSignal.sweep(frames: Self.trackSeconds * 8_000, channels: 1, bits: 16, sampleRate: 8_000,
                                          seed: UInt64(track + 1))
            try FLACFixture.write(path: music + "/" + uri, samples: signal, channels: 1, bitsPerSample: 16,
                                  sampleRate: 8_000)
            uris.append(uri)
        }
        let state = dir.file("state")
        let log = dir.file("fermatad.log")
        let port = TestSocket.freePort()
        var random = SplitMix64(seed: Self.seed)
        // Practice memory off: it restores a track's tempo and loop after the command that entered the track has
        // been answered (an automatic change, as the next song is; `PracticeMemoryTests` covers its races).
        let config = dir.file("fermata.toml")
        try Data("[practice]\nremember = false\n".utf8).write(to: URL(fileURLWithPath: config))
        let arguments = ["--config", config, "--music", music, "--state", state, "--output", "null", "--socket", "",
                         "--resume", "paused", "--checkpoint-interval", "1"]
        var daemon = try FermatadProcess(arguments: arguments, port: port, logPath: log)
        var client = try await daemon.connected()
        try client.ok("update")
        try await waitForScan(client)
        for uri in uris { try client.ok("add \"\(uri)\"") }

        var compared = 0, positions = 0
        for round in 0..<Self.rounds {
            var sent: [String] = []
            for _ in 0..<Int.random(in: 2...8, using: &random) {
                let line = try Self.randomCommand(client, uris: uris, random: &random)
                let reply = try client.command(line)
                sent.append(line + (reply.ack.map { " -> \($0)" } ?? ""))
            }
            // What the daemon acknowledged, read just before the kill.
            let before = try client.ok("status")
            let loopBefore = try client.ok("loop_status")
            let readAt = ContinuousClock.now
            daemon.kill()
            let killedAfter = (ContinuousClock.now - readAt) / .seconds(1)

            daemon = try FermatadProcess(arguments: arguments, port: port, logPath: log)
            client = try await daemon.connected()
            // Resumed paused, so the position read is the one restored (playing on, it would move while a loaded
            // machine restarts the daemon): what played comes back paused.
            var after = try client.ok("status")
            if before["state"] == "play", let index = after.pairs.firstIndex(where: { $0.key == "state" }),
               after.pairs[index].value == "pause" {
                after.pairs[index].value = "play"
            }
            let loopAfter = try client.ok("loop_status")
            let context = "round \(round) after \(sent); before \(before.pairs.map { "\($0.key)=\($0.value)" }); after \(after.pairs.map { "\($0.key)=\($0.value)" })"
            for field in Self.statusFields {
                #expect(after[field] == before[field], "\(field): \(after[field] ?? "nil") vs \(before[field] ?? "nil"); \(context)")
            }
            for field in Self.loopFields {
                #expect(Self.close(loopAfter[field], loopBefore[field]),
                        "\(field): \(loopAfter[field] ?? "nil") vs \(loopBefore[field] ?? "nil"); \(context)")
            }
            if let was = before["elapsed"].flatMap(Double.init), let now = after["elapsed"].flatMap(Double.init),
               before["state"] != "stop", before["songid"] == after["songid"] {
                let atKill = was + (before["state"] == "play" ? killedAfter * 1.25 : 0)  // at most 125 % tempo
                // A loop folds the position back into it: compared only away from a loop's end.
                let looped = loopBefore["loop_end"].flatMap(Double.init).map { atKill + 2.5 > $0 } ?? false
                if !looped && atKill + 2.5 < Double(Self.trackSeconds) {
                    #expect(abs(now - atKill) <= 2.5, "position \(now) s, acknowledged \(was) s (+\(killedAfter) s); \(context)")
                    positions += 1
                }
            }
            compared += 1
        }
        _ = daemon.stop()
        print("durability property: \(compared) kills after random commands, \(positions) positions compared, seed \(Self.seed)")
        #expect(positions >= Self.rounds / 4, "enough rounds compared the position (\(positions))")
    }

    /// Two status values that agree: equal, or numbers within 0.05 (seconds printed with three decimals).
    static func close(_ a: String?, _ b: String?) -> Bool {
        if a == b { return true }
        guard let a = a.flatMap(Double.init), let b = b.flatMap(Double.init) else { return false }
        return abs(a - b) <= 0.05
    }

    /// One random command, valid or not (refusals must leave the state as it was, too).
    static func randomCommand(_ client: MPDTestClient, uris: [String], random: inout SplitMix64) throws -> String {
        let length = Int(try client.ok("status")["playlistlength"] ?? "0") ?? 0
        let position = Int.random(in: 0...max(0, length), using: &random)  // sometimes one past the end
        let seconds = Int.random(in: 0..<(trackSeconds - 20), using: &random)
        let bit = Int.random(in: 0...1, using: &random)
        switch Int.random(in: 0..<22, using: &random) {
        case 0, 1: return "play \(position)"
        case 2: return "pause \(bit)"
        case 3: return "stop"
        case 4: return "next"
        case 5: return "previous"
        case 6, 7: return "seekcur \(seconds)"
        case 8: return "seek \(position) \(seconds)"
        case 9: return "setvol \(Int.random(in: 0...100, using: &random))"
        case 10: return "repeat \(bit)"
        case 11: return "random \(bit)"
        case 12: return "single \(bit)"
        case 13: return "consume \(bit)"
        case 14: return "tempo \([80, 90, 100, 110, 125][Int.random(in: 0..<5, using: &random)])"
        case 15: return "loop_set \(seconds) \(seconds + Int.random(in: 2...4, using: &random))"
        case 16: return "loop_clear"
        case 17: return "add \"\(uris[Int.random(in: 0..<uris.count, using: &random)])\""
        case 18: return length > 2 ? "delete \(Int.random(in: 0..<length, using: &random))" : "status"
        case 19: return "move \(Int.random(in: 0..<max(1, length), using: &random)) \(Int.random(in: 0..<max(1, length), using: &random))"
        case 20: return "play"
        default: return "seekcur +\(Int.random(in: 1...3, using: &random))"
        }
    }
}
