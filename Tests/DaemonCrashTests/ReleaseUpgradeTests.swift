import Foundation
import Testing
import TestSupport

/// Every release's state opens with this build, migrates forward and loses nothing: for each fixture in
/// `Fixtures/releases/VERSION/` (made by that release's own daemon with `Tests/Tools/make-release-fixture.sh`: a queue
/// with a queued section and a priority, a stored playlist, a sticker, a card, sections, practice time, the player's
/// modes and an A-B loop, paused at 7.5 s), this fermatad starts on the dumped database and answers every read command
/// of `answers.txt` as the release did — the position within 0.1 s (the pause is heard a few milliseconds after it is
/// asked), the uptime and the playing time aside — then plays on.
@Suite(.timeLimit(.minutes(3)))
struct ReleaseUpgradeTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/releases").path

    static var releases: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    /// The recorded read commands and their answers, in order.
    static func answers(_ text: String) -> [(command: String, reply: [String])] {
        var out: [(command: String, reply: [String])] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("> ") {
                out.append((String(line.dropFirst(2)), []))
            } else if !line.isEmpty, !out.isEmpty {
                out[out.count - 1].reply.append(String(line))
            }
        }
        return out
    }

    /// What may differ between the release's run and this one: the uptime, the time played since start, a stored
    /// playlist's file date (the fixture's copy), and the position, compared to 0.1 s apart.
    static func comparable(_ command: String, _ reply: [String]) -> [String] {
        var out: [String] = []
        var afterPlaylist = false
        for line in reply {
            defer { afterPlaylist = line.hasPrefix("playlist: ") }
            if command == "stats", line.hasPrefix("uptime: ") || line.hasPrefix("playtime: ") { continue }
            if command == "status", line.hasPrefix("elapsed: ") || line.hasPrefix("time: ") { continue }
            if afterPlaylist, line.hasPrefix("Last-Modified: ") { continue }
            out.append(line)
        }
        return out
    }

    @Test func thereIsAFixtureForEveryRelease() {
        #expect(!Self.releases.isEmpty, "no release fixtures in \(Self.folder)")
    }

    @Test(arguments: releases)
    func aReleasedStateUpgradesWithNothingLost(_ version: String) async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "sqlite3 (deploy/build-deps.sh)")
        let fixture = Self.folder + "/" + version
        let dir = try TemporaryDirectory(prefix: "fermata-release-\(version)")
        let music = dir.file("music"), state = dir.file("state")
        try FileManager.default.copyItem(atPath: fixture + "/music", toPath: music)
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture + "/playlists", toPath: state + "/playlists")
        let database = state + "/library.sqlite"
        let loaded = sqlite(database, ".read '\(fixture)/state.sql'")
        try #require(loaded.isEmpty, "sqlite3 .read: \(loaded)")
        let recorded = Self.answers(try String(contentsOfFile: fixture + "/answers.txt", encoding: .utf8))
        try #require(recorded.count > 5, "answers.txt of \(version)")

        let daemon = try FermatadProcess.forCrashTest(music: music, state: state, port: TestSocket.freePort(),
                                                      log: dir.file("fermatad.log"))
        defer { daemon.stop() }
        let client = try await daemon.connected()
        for (command, expected) in recorded {
            let reply = try client.ok(command)
            // Nothing lost: every line the release answered, in its order. A field a later release added (1.0.0's
            // `loop_status` had no `loop_pass`) is new, not a change: lines of keys the release never sent are left out.
            let known = Set(expected.map { $0.prefix { $0 != ":" } })
            let now = reply.pairs.map { "\($0.key): \($0.value)" }.filter { known.contains($0.prefix { $0 != ":" }) }
            #expect(Self.comparable(command, now) == Self.comparable(command, expected),
                    "\(version): `\(command)` answers differently after the upgrade")
            if command == "status" {
                let was = expected.first { $0.hasPrefix("elapsed: ") }.flatMap { Double($0.dropFirst(9)) } ?? -1
                let elapsed = Double(reply["elapsed"] ?? "") ?? -9
                #expect(abs(elapsed - was) <= 0.1, "\(version): resumed at \(elapsed) s, saved at \(was) s")
            }
        }
        // Every migration of this build is recorded, and playing goes on from the saved place.
        let migrations = sqlite(database, "SELECT count(*) FROM grdb_migrations")
        #expect(Int(migrations) ?? 0 >= 16, "\(migrations)")
        try client.ok("play")
        let playing = try await Patience.wait { try client.ok("status")["state"] == "play" }
        let song = try client.ok("status")["song"]
        #expect(playing && song == "0", "playing again, song \(song ?? "none")")
    }
}
