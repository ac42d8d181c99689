import Foundation
import Testing
import TestSupport

/// A music drive that is mounted a few seconds after fermatad starts (a USB stick, a network share, a slow card
/// reader): the daemon used to stop with "music directory not found", leaving the box silent. It now starts and
/// serves with the directory missing, keeps the saved queue (entries whose files are absent stay), says so once in
/// the log, and plays the saved entry from its saved position once the directory appears — without a restart.
@Suite struct LateMusicTests {
    @Test func musicDirectoryMissingAtBootPlaysTheSavedEntryOnceItAppears() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: FaultDaemon.binary), "`swift build` builds fermatad")
        let dir = try TemporaryDirectory(prefix: "fermata-fault-music")
        let music = dir.file("music"), away = dir.file("music-not-mounted")
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        for (index, name) in ["one.flac", "two.flac"].enumerated() {
            let signal = TestSignal.sweep(frames: 44_100 * 30, channels: 2, bits: 16, seed: UInt64(90 + index))
            try FLACFixture.write(path: music + "/" + name, samples: signal, channels: 2, bitsPerSample: 16,
                                  sampleRate: 44_100, tags: ["TITLE": name])
        }
        try "# fault tests: defaults only\n".write(toFile: dir.file("fermata.toml"), atomically: true, encoding: .utf8)
        let arguments = ["--config", dir.file("fermata.toml"), "--music", music, "--state", dir.file("state"),
                         "--output", "null", "--resume", "playing"]
        let environment = ["PATH": "/usr/bin:/bin", "HOME": dir.path]

        // First boot: queue both files, play the second from 3 s, stop cleanly (the state says playing there).
        let first = try await FaultDaemon.start(arguments, environment: environment, logPath: dir.file("first.log"))
        try await first.command("update")
        try #require(try await first.status { $0["updating_db"] == nil }["updating_db"] == nil)
        try await first.command("add \"one.flac\"")
        try await first.command("add \"two.flac\"")
        try await first.command("play 1")
        try #require(try await first.status { $0["state"] == "play" }["state"] == "play")
        try await first.command("seekcur 3")
        let playing = try await first.status { ($0["elapsed"].flatMap(Double.init) ?? 0) >= 3 }
        let savedID = try #require(playing["songid"])
        #expect(try await first.stop() == 0, "\(first.log)")

        // Second boot with the drive not mounted yet: no exit, the queue intact, stopped, one log line.
        try FileManager.default.moveItem(atPath: music, toPath: away)
        let second = try await FaultDaemon.start(arguments, environment: environment, logPath: dir.file("second.log"))
        #expect(try await second.log(contains: "music directory \(music) is missing"), "\(second.log)")
        let waiting = try await second.status()
        #expect(waiting["state"] == "stop" && waiting["playlistlength"] == "2" && waiting["songid"] == savedID,
                "\(waiting)")
        let queue = try await second.command("playlistinfo").all("file")
        #expect(queue == ["one.flac", "two.flac"], "entries whose files are absent are kept")

        // The drive is mounted: the saved entry plays from its saved position.
        try FileManager.default.moveItem(atPath: away, toPath: music)
        let resumed = try await second.status { $0["state"] == "play" }
        #expect(resumed["state"] == "play" && resumed["songid"] == savedID, "\(resumed)\n\(second.log)")
        #expect((resumed["elapsed"].flatMap(Double.init) ?? 0) >= 2.5, "from the saved position: \(resumed)")
        // Said once over the whole wait (the watch checks every 2 s meanwhile).
        #expect(second.log.components(separatedBy: "is missing").count == 2, "said once:\n\(second.log)")
        #expect(second.process.isAlive)
        #expect(try await second.stop() == 0, "\(second.log)")
    }
}
