import Foundation
import Testing
import TestSupport

/// A sound card that is not there when fermatad starts (USB DAC plugged in later, HAT driver still loading): the
/// daemon says so once, keeps retrying, and plays the queue from its start once the device appears.
///
/// The device is an ALSA PCM the test defines later in the daemon's own ALSA configuration (`ALSA_CONFIG_PATH`,
/// which alsa-lib re-reads at the next open when the file changes): the `file` plugin over `null`, capturing to a file.
@Suite struct LateDeviceTests {
    static let rate = 44_100

    @Test func cardAbsentAtStartPlaysOnceItAppears() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: FaultDaemon.binary), "`swift build` builds fermatad")
        let dir = try TemporaryDirectory(prefix: "fermata-fault-late")
        let signal = TestSignal.sweep(frames: 30_000, channels: 2, bits: 16, seed: 77)
        try FileManager.default.createDirectory(atPath: dir.file("music"), withIntermediateDirectories: true)
        try FLACFixture.write(path: dir.file("music/late.flac"), samples: signal, channels: 2, bitsPerSample: 16,
                              sampleRate: Self.rate, tags: ["TITLE": "Late"])
        try "# fault tests: defaults only\n".write(toFile: dir.file("fermata.toml"), atomically: true, encoding: .utf8)
        let alsaConfig = dir.file("asound.conf")
        try "# no PCM named fermata_late yet\n".write(toFile: alsaConfig, atomically: true, encoding: .utf8)
        let daemon = try await FaultDaemon.start(
            ["--config", dir.file("fermata.toml"), "--music", dir.file("music"), "--state", dir.file("state"),
             "--output", "fermata_late", "--resume", "off"],
            environment: ["PATH": "/usr/bin:/bin", "HOME": dir.path, "ALSA_CONFIG_PATH": alsaConfig],
            logPath: dir.file("fermatad.log"))
        try await daemon.command("update")
        let scanned = try await daemon.status { $0["updating_db"] == nil }
        try #require(scanned["updating_db"] == nil, "scan finished")
        try await daemon.command("add \"late.flac\"")
        try await daemon.command("play 0")

        #expect(try await daemon.log(contains: "audio device lost or absent"), "\(daemon.log)")
        // Three retries (one a second) with the device still missing: the log does not grow with them.
        try await Task.sleep(for: .seconds(3))
        let waiting = daemon.log.split(separator: "\n")
        #expect(waiting.filter { $0.contains("audio device lost or absent") }.count == 1, "\(daemon.log)")
        #expect(waiting.filter { $0.contains("fermata_late") && !$0.contains("ready after") }.count <= 1,
                "alsa-lib's own message at most once:\n\(daemon.log)")
        let status = try await daemon.status()
        #expect(status["state"] == "play" && status["error"]?.contains("waiting for the audio device") != false,
                "\(status)")

        // The card appears.
        let capture = dir.file("capture.raw")
        try """
        pcm.fermata_late {
            type file
            slave { pcm { type null } }
            file "\(capture)"
            format "raw"
        }
        """.write(toFile: alsaConfig, atomically: true, encoding: .utf8)
        #expect(try await daemon.log(contains: "audio device back"), "\(daemon.log)")
        let ended = try await daemon.status { $0["state"] == "stop" }
        #expect(ended["state"] == "stop", "the track played to its end: \(ended)")
        #expect(try await daemon.stop() == 0, "\(daemon.log)")

        let bytes = FileManager.default.contents(atPath: capture) ?? Data()
        let heard = bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
            .map { Int32(Int16(littleEndian: $0)) }
        try #require(heard.count >= signal.count, "captured \(heard.count) of \(signal.count) samples")
        let firstDifference = zip(heard, signal).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(firstDifference == nil, "the queue's signal from its first sample, bit-exact")
    }
}
