import Foundation
import Glibc
import Testing
import TestSupport

/// The daemon is killed with SIGKILL at random moments — while playing, in the middle of queue edits over the
/// protocol, during a scan — 50 times. After each kill the database passes `integrity_check`; after each restart the
/// queue is the one after the last acknowledged edit, the shuffle order is the saved one, and the position is within
/// checkpoint interval + 0.5 s of where the kill happened.
@Suite(.serialized) struct CrashTests {
    static let cycles = 50
    static let trackSeconds = 4.0
    static let checkpointInterval = 1.0

    struct Expected {
        var ids: [Int]
        /// An edit sent but not acknowledged when the daemon died: either outcome is allowed. An unacknowledged
        /// `addid` has `newID` where its entry would be (its id is not known: any id not queued before).
        var alternative: [Int]?

        static let newID = -1

        func allows(_ ids: [Int]) -> Bool {
            if ids == self.ids { return true }
            guard let alternative, alternative.count == ids.count else { return false }
            let before = Set(self.ids)
            return zip(alternative, ids).allSatisfy { $0 == $1 || $0 == Self.newID && !before.contains($1) }
        }
    }

    @Test func fiftyKillsLoseNothingAcknowledged() async throws {
        let dir = try TemporaryDirectory(prefix: "fermata-crash")
        let music = dir.file("music")
        var uris: [String] = []
        for album in 0..<3 {
            try FileManager.default.createDirectory(atPath: music + "/album\(album)", withIntermediateDirectories: true)
            for track in 0..<8 {
                let uri = "album\(album)/\(track).flac"
                let signal = TestSignal.sweep(frames: Int(Self.trackSeconds * 22_050), channels: 1, bits: 16,
                                              sampleRate: 22_050, seed: UInt64(album * 8 + track))
                try FLACFixture.write(path: music + "/" + uri, samples: signal, channels: 1, bitsPerSample: 16,
                                      sampleRate: 22_050, tags: ["TITLE": "t\(track)"])
                uris.append(uri)
            }
        }
        let state = dir.file("state")
        let database = state + "/library.sqlite"
        let log = dir.file("fermatad.log")
        let port = TestSocket.freePort()
        var random = SplitMix64(seed: 2026)

        // Build the 1,000-entry shuffled queue and start playing.
        var daemon = try FermatadProcess.forCrashTest(music: music, state: state, port: port, log: log)
        var client = try await daemon.connected()
        try client.ok("update")
        try await waitForScan(client)
        try client.sendLine("command_list_begin")
        for index in 0..<1000 { try client.sendLine("add \"\(uris[index % uris.count])\"") }
        try client.ok("command_list_end")
        try client.ok("random 1")
        try client.ok("play 500")
        var expected = Expected(ids: try queueIDs(client))
        #expect(expected.ids.count == 1000)
        var previousOrder: [Int] = []
        var checkedPositions = 0

        for cycle in 0..<Self.cycles {
            let scenario = cycle % 3
            var pending: [Int]?
            if scenario == 1 {
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    expected.ids = try edit(client, expected.ids, uris: uris, random: &random, acknowledged: true)
                }
                pending = try edit(client, expected.ids, uris: uris, random: &random, acknowledged: false)
            } else if scenario == 2 {
                try client.ok("update")
                try await Task.sleep(for: .microseconds(Int.random(in: 0...30_000, using: &random)))
            } else {
                try await Task.sleep(for: .microseconds(Int.random(in: 200_000...1_500_000, using: &random)))
            }
            let status = pending == nil ? try client.ok("status") : MPDReply()
            let statusTime = ContinuousClock.now
            daemon.kill()
            let killedAfter = (ContinuousClock.now - statusTime) / .seconds(1)
            expected.alternative = pending

            #expect(sqlite(database, "PRAGMA integrity_check") == "ok", "cycle \(cycle): integrity")
            let savedOrder = sqlite(database, "SELECT id FROM queue_entry ORDER BY shuffle_key").split(separator: "\n")
                .compactMap { Int($0) }

            daemon = try FermatadProcess.forCrashTest(music: music, state: state, port: port, log: log)
            client = try await daemon.connected()
            let ids = try queueIDs(client)
            #expect(expected.allows(ids), "cycle \(cycle): queue after the last acknowledged edit: \(ids.count) entries, expected \(expected.ids.count)")
            expected = Expected(ids: ids)
            #expect(Set(savedOrder) == Set(ids), "cycle \(cycle): saved shuffle order covers the queue")
            let survivors = Set(savedOrder).intersection(previousOrder)
            #expect(savedOrder.filter(survivors.contains) == previousOrder.filter(survivors.contains),
                    "cycle \(cycle): the shuffle order of untouched entries is unchanged")
            previousOrder = savedOrder

            let restored = try client.ok("status")
            if let songID = restored["songid"].flatMap(Int.init), let next = restored["nextsongid"].flatMap(Int.init),
               let index = savedOrder.firstIndex(of: songID), index + 1 < savedOrder.count {
                #expect(next == savedOrder[index + 1], "cycle \(cycle): the next entry follows the saved shuffle order")
            }
            if let before = status["elapsed"].flatMap(Double.init), status["state"] == "play",
               let song = status["songid"], restored["songid"] == song {
                let atKill = before + killedAfter
                if atKill < Self.trackSeconds - 0.3 {
                    let now = restored["elapsed"].flatMap(Double.init) ?? -1
                    #expect(now <= atKill + 0.05 && now >= atKill - Self.checkpointInterval - 0.5,
                            "cycle \(cycle): resumed at \(now) s, killed at \(atKill) s")
                    checkedPositions += 1
                }
            }
            try client.ok("play")
        }
        daemon.stop()
        #expect(checkedPositions >= Self.cycles / 4, "enough cycles checked the position (\(checkedPositions))")
        print("crash test: \(Self.cycles) SIGKILLs, \(checkedPositions) positions checked, queue length \(expected.ids.count)")
    }

    /// One random queue edit (add, delete or move; never the current entry). With `acknowledged` false the command is
    /// sent and the daemon is killed before its answer: the returned ids are the queue if the edit did land (an
    /// added entry as `Expected.newID`: it may land before the kill, and its id is not known).
    func edit(_ client: MPDTestClient, _ ids: [Int], uris: [String], random: inout SplitMix64,
              acknowledged: Bool) throws -> [Int] {
        var ids = ids
        let current = try client.ok("status")["songid"].flatMap(Int.init)
        switch Int.random(in: 0..<3, using: &random) {
        case 0:
            let position = Int.random(in: 0...ids.count, using: &random)
            let uri = uris[Int.random(in: 0..<uris.count, using: &random)]
            guard acknowledged else {
                try client.sendLine("addid \"\(uri)\" \(position)")
                ids.insert(Expected.newID, at: position)
                return ids
            }
            let id = Int(try client.ok("addid \"\(uri)\" \(position)")["Id"] ?? "") ?? -1
            ids.insert(id, at: position)
        case 1:
            let victim = ids.filter { $0 != current }.randomElement(using: &random)!
            ids.removeAll { $0 == victim }
            try client.sendLine("deleteid \(victim)")
            if acknowledged { _ = try client.readOK() }
        default:
            let mover = ids.filter { $0 != current }.randomElement(using: &random)!
            ids.removeAll { $0 == mover }
            let target = Int.random(in: 0...ids.count, using: &random)
            ids.insert(mover, at: target)
            try client.sendLine("moveid \(mover) \(target)")
            if acknowledged { _ = try client.readOK() }
        }
        return ids
    }

    func queueIDs(_ client: MPDTestClient) throws -> [Int] {
        try client.ok("playlistid").all("Id").compactMap { Int($0) }
    }
}
