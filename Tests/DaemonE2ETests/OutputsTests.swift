import Foundation
import Testing
import TestSupport

/// Several outputs on the real daemon: an ALSA `file` capture as the primary, FIFO outputs beside it, driven by mpc.
@Suite(.serialized) struct OutputsTests {
    static let config = """
        [output-room]
        type = "alsa"
        device = "file:$ROOT/capture.raw"

        [output-snap]
        type = "fifo"
        path = "$ROOT/snapfifo"
        format = "48000:16:2"

        """

    static func capture(_ daemon: OutputDaemon) -> [UInt8] {
        [UInt8](FileManager.default.contents(atPath: daemon.root.file("capture.raw")) ?? Data())
    }

    /// A FIFO nobody opens and a reader that reads 8 KiB and then stops: the capture stays bit-exact and gapless
    /// across the two tracks, both FIFO outputs count drops, and the stalled reader got the stream's first bytes.
    @Test func absentAndStalledReadersDoNotDisturbTheDevice() async throws {
        let daemon = try OutputDaemon(config: Self.config + """
            [output-stall]
            type = "fifo"
            path = "$ROOT/stallfifo"

            """)
        let stalled = try FIFOReader(path: daemon.root.file("stallfifo"), stallAfter: 8192)
        let (snap, stall) = try await onThread {
            try daemon.start()
            try daemon.playBothToEnd()
            // Nobody reading shows within half a second of the first write that does not go through.
            let deadline = Date().addingTimeInterval(Patience.stallSeconds)  // a hang detector
            while try daemon.attributes(ofOutput: 1)["connected"] != "0" && Date() < deadline { usleep(50_000) }
            return (try daemon.attributes(ofOutput: 1), try daemon.attributes(ofOutput: 2))
        }
        let got = Self.capture(daemon)
        let received = stalled.bytes
        _ = try await onThread { stalled.finish(); return daemon.stop() }
        #expect(got.count == OutputDaemon.signalBytes.count)
        #expect(firstMismatch(got, OutputDaemon.signalBytes) == nil, "capture differs; log:\n\(daemon.log)")
        #expect(Int(snap["dropped_frames"] ?? "") ?? 0 > 0, "no reader: \(snap)")
        #expect(snap["connected"] == "0", "\(snap)")
        var info = stat()
        #expect(stat(daemon.root.file("snapfifo"), &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "FIFO created")
        #expect(Int(stall["dropped_frames"] ?? "") ?? 0 > 0, "stalled reader: \(stall)")
        #expect(received.count == 8192 && received == Array(OutputDaemon.signalBytes[..<8192]))
    }

    /// `mpc outputs`, `disable`, `enable`, `toggle`; `idle output` wakes; a disabled FIFO gets nothing while the
    /// capture stays bit-exact; the flags survive a restart.
    @Test func mpcSwitchesOutputs() async throws {
        let daemon = try OutputDaemon(config: Self.config)
        let reader = try FIFOReader(path: daemon.root.file("snapfifo"))
        defer { reader.finish() }
        try await onThread { try daemon.start() }
        let listed = try await onThread { try daemon.mpc("outputs") }.output
        #expect(listed.lines.filter { $0.hasPrefix("Output") } == ["Output 1 (room) is enabled", "Output 2 (snap) is enabled"])
        #expect(listed.contains("\tformat=\"48000:16:2\"\n") && listed.contains("\tdropped_frames="), "\(listed)")
        #expect(try await onThread { try daemon.mpc("disable", "2") }.output.contains("Output 2 (snap) is disabled"))
        try await onThread { try daemon.playBothToEnd() }
        #expect(reader.bytes.isEmpty, "a disabled FIFO output got \(reader.bytes.count) bytes")
        #expect(firstMismatch(Self.capture(daemon), OutputDaemon.signalBytes) == nil)

        // The watcher's session exists once its greeting is read, and keeps every change from then on for its next
        // `idle`: so `enable` may come before or after `idle` is sent (no guessed delay for the idle to be waiting).
        let watcher = try await onThread { try MPDTestClient(port: daemon.port) }
        async let idle = onThread { try watcher.command("idle output") }
        #expect(try await onThread { try daemon.mpc("enable", "2") }.output.contains("Output 2 (snap) is enabled"))
        #expect(try await idle["changed"] == "output")
        try await onThread { try daemon.playBothToEnd() }
        #expect(firstMismatch(Self.capture(daemon), OutputDaemon.signalBytes) == nil)
        let delivered = reader.bytes
        #expect(delivered.count >= 4096 && delivered[..<4096] == OutputDaemon.signalBytes[..<4096],
                "an enabled FIFO gets the stream from its first frame (\(delivered.count) bytes)")

        #expect(try await onThread { try daemon.mpc("toggleoutput", "2") }.output.contains("Output 2 (snap) is disabled"))
        #expect(try await onThread { try daemon.mpc("toggleoutput", "1") }.output.contains("Output 1 (room) is disabled"))
        let restarted = try await onThread { () -> String in
            #expect(daemon.stop() == 0)
            try daemon.start()
            return try daemon.mpc("outputs").output
        }
        #expect(restarted.lines.filter { $0.hasPrefix("Output") }
                == ["Output 1 (room) is disabled", "Output 2 (snap) is disabled"], "after a restart")
        #expect(try await onThread { daemon.stop() } == 0)
    }

    /// With the ALSA output switched off, playback stays paced (the paced null sink stands in) and a FIFO reader gets
    /// both tracks in real time, gapless and bit-exact.
    @Test func fifoGetsRealTimeAudioWhileTheDeviceIsOff() async throws {
        let daemon = try OutputDaemon(config: Self.config)
        let reader = try FIFOReader(path: daemon.root.file("snapfifo"))
        defer { reader.finish() }
        let seconds = try await onThread { () -> Double in
            try daemon.start()
            _ = try daemon.mpc("disable", "1")
            try? FileManager.default.removeItem(atPath: daemon.root.file("capture.raw"))
            let started = Date()
            try daemon.playBothToEnd()
            let elapsed = Date().timeIntervalSince(started)
            usleep(300_000)
            return elapsed
        }
        let audioSeconds = Double(OutputDaemon.trackFrames.reduce(0, +)) / Double(OutputDaemon.rate)
        #expect(seconds >= audioSeconds - 0.3, "paced: \(seconds) s for \(audioSeconds) s of audio")
        #expect(!FileManager.default.fileExists(atPath: daemon.root.file("capture.raw")), "the device stayed closed")
        let got = reader.bytes
        #expect(got.count == OutputDaemon.signalBytes.count)
        #expect(firstMismatch(got, OutputDaemon.signalBytes) == nil, "FIFO differs; log:\n\(daemon.log)")
        #expect(try await onThread { daemon.stop() } == 0)
    }
}
