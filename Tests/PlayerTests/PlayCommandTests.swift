import Foundation
import Testing
import TestSupport

/// The real `fermata play` binary, end to end: files in, ALSA capture out, exit status and messages.
@Suite struct PlayCommandTests {
    static var binary: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("fermata").path
    }

    /// Runs the binary to completion on a thread of its own (see `onThread`).
    func run(_ arguments: [String]) async throws -> (status: Int32, stderr: String) {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary), "`swift test` builds \(Self.binary)")
        return try await onThread {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.binary)
            process.arguments = arguments
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.reap()
            return (process.reapedTerminationStatus, text)
        }
    }

    @Test
    func playsFilesGaplesslyAndSkipsABadOne() async throws {
        let dir = try TemporaryDirectory()
        let signal = TestSignal.sweep(frames: 30_000, channels: 2, bits: 16, seed: 61)
        try FLACFixture.write(path: dir.file("a.flac"), samples: Array(signal[..<30_002]), channels: 2,
                              bitsPerSample: 16, sampleRate: 44_100)
        try FLACFixture.write(path: dir.file("b.flac"), samples: Array(signal[30_002...]), channels: 2,
                              bitsPerSample: 16, sampleRate: 44_100)
        try Data("not audio".utf8).write(to: dir.url("bad.flac"))
        let capture = dir.file("out.raw")
        let (status, stderr) = try await run(["play", "--output", "file:" + capture, dir.file("a.flac"), dir.file("bad.flac"),
                                        dir.file("b.flac")])
        #expect(status == 0)
        #expect(stderr.contains("audio goes to raw PCM captured to \(capture)"))
        #expect(stderr.contains("skipping entry 2: unsupported file \(dir.file("bad.flac"))"))
        let bytes = [UInt8](FileManager.default.contents(atPath: capture) ?? Data())
        #expect(bytes.count == signal.count * 2)
        let samples = stride(from: 0, to: bytes.count - 1, by: 2).map {
            Int32(Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8))
        }
        #expect(samples == signal)
    }

    /// A typo in every file name used to play nothing and exit 0.
    @Test
    func noReadableFileExits66NamingEachOne() async throws {
        let dir = try TemporaryDirectory()
        let (status, stderr) = try await run(["play", "--output", "null", dir.file("missing.flac"), dir.file("gone.wav")])
        #expect(status == 66)
        #expect(stderr.contains("nothing to play"), "\(stderr)")
        #expect(stderr.contains("\(dir.file("missing.flac")): No such file or directory"), "\(stderr)")
        #expect(stderr.contains("\(dir.file("gone.wav")): No such file or directory"), "\(stderr)")
        let folder = try await run(["play", "--output", "null", dir.path])
        #expect(folder.0 == 66 && folder.1.contains("\(dir.path): not a file"), "\(folder)")
    }

    @Test
    func rejectsBadOptionsWithAMessage() async throws {
        let (status, stderr) = try await run(["play", "--volume", "150", "x.flac"])
        #expect(status != 0)
        #expect(stderr.contains("--volume must be 0-100"))
        // `--loop=5:1e15` trapped (Double → Int64, exit 132); the others were taken as they came.
        let refused: [([String], String)] = [
            (["--loop=5:1e15"], "--loop must be"), (["--loop=nan:5"], "--loop must be"),
            (["--start=nan"], "--start must be"), (["--start=-5"], "--start must be"),
            (["--crossfade-ms=-1"], "--crossfade-ms must be"), (["--periods=0"], "--periods must be"),
            (["--period-ms=0"], "--period-ms must be"), (["--loop-repeat=-1"], "--loop-repeat must be"),
        ]
        for (options, message) in refused {
            let (status, stderr) = try await run(["play", "--output", "null"] + options + ["x.flac"])
            #expect(status == 64 && stderr.contains(message), "\(options): \(status) \(stderr)")
        }
        // `gpio monitor --duration nan` trapped the same way (`Int(seconds * 1000)`).
        for duration in ["nan", "inf", "1e300", "-1"] {
            let (status, stderr) = try await run(["gpio", "monitor", "--line", "GPIO17", "--duration=\(duration)"])
            #expect(status == 64 && stderr.contains("--duration must be"), "\(duration): \(status) \(stderr)")
        }
    }

    /// systemd and the shell stop a foreground `fermata play` with SIGTERM: it must stop playing and exit cleanly.
    ///
    /// The signal goes out once the program is ready for it, not after a guessed delay (on a loaded machine or under
    /// arm64 emulation 1.5 s was not enough): its "playing …" line is on stderr and /proc shows SIGTERM caught (the
    /// dispatch signal source `InterruptWatch` registers installs a handler). Before that, SIGTERM would kill it
    /// (the default action) or be ignored. Fails if it never gets ready (60 s), exits other than with status 0, or
    /// is still running 15 s after the signal.
    @Test
    func sigtermStopsPlaybackAndExitsCleanly() async throws {
        let dir = try TemporaryDirectory()
        let signal = TestSignal.sweep(frames: 30 * 8_000, channels: 1, bits: 16, sampleRate: 8_000, seed: 62)
        try FLACFixture.write(path: dir.file("long.flac"), samples: signal, channels: 1, bitsPerSample: 16,
                              sampleRate: 8_000)
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary), "`swift test` builds \(Self.binary)")
        let log = dir.file("stderr.log")
        #expect(FileManager.default.createFile(atPath: log, contents: nil))
        let (ready, reason, status, seconds) = try await onThread {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.binary)
            process.arguments = ["play", "--output", "null", dir.file("long.flac")]
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
            try process.run()
            let ready = Self.waitUntilReady(process, log: log, playing: dir.file("long.flac"), seconds: 60)
            let sent = Date()
            process.terminate()
            let deadline = sent.addingTimeInterval(15)
            while process.isAlive && Date() < deadline { usleep(10_000) }
            if process.isAlive { kill(process.processIdentifier, SIGKILL) }
            process.reap()
            return (ready, process.reapedTerminationReason, process.reapedTerminationStatus,
                    Date().timeIntervalSince(sent))
        }
        let stderr = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        try #require(ready, "not ready for SIGTERM within 60 s; stderr: \(stderr)")
        #expect(reason == .exit && status == 0, "exit \(status) (\(reason == .exit ? "exited" : "killed by a signal"))")
        #expect(seconds < 15, "still playing \(seconds) s after SIGTERM")
    }

    /// Polls until `process` has logged that it plays `playing` and catches SIGTERM; false if it exits first or
    /// `seconds` pass.
    static func waitUntilReady(_ process: Process, log: String, playing: String, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isAlive && Date() < deadline {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if text.contains("playing \(playing)") && catchesSIGTERM(process.processIdentifier) { return true }
            usleep(20_000)
        }
        return false
    }

    /// Whether /proc/PID/status lists SIGTERM among the caught signals (`SigCgt`, a hex mask of bit signal − 1).
    static func catchesSIGTERM(_ pid: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
              let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return mask & (1 << UInt64(SIGTERM - 1)) != 0
    }
}
