import Foundation
import Glibc
import Testing
import TestSupport

/// `./deploy/try-fermata.sh` shows the jukebox itself: from a clean clone, with an empty home, it makes the demo
/// library, starts fermatad with places of the user's own, queues the library and plays; `fermata status` (no flags)
/// and `mpc` reach it; Ctrl-C stops it with the state saved, and a second run resumes at the saved song and position.
/// The build step is skipped (`FERMATA_BIN_DIR`: the binaries `swift test` built), and so is the install step where
/// the packages are present.
@Suite(.serialized, .timeLimit(.minutes(40)))
struct TryFermataTests {
    /// The script running in the background with its output in files.
    final class Run: Sendable {
        let process = Process()
        let log: String

        init(script: String, environment: [String: String], log: String) throws {
            self.log = log
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
            defer { try? handle.close() }
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = [script]
            process.environment = environment
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
        }

        deinit { if process.isAlive { kill(process.processIdentifier, SIGKILL) } }

        var text: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

        /// Ctrl-C, then its exit status (nil when it did not end within `Patience.stallSeconds`: a hang detector, as
        /// the save and stop take as long as a loaded machine makes them).
        func interrupt() async throws -> Int32? {
            try await onThread { [self] in
                kill(process.processIdentifier, SIGINT)
                let deadline = Date().addingTimeInterval(Patience.stallSeconds)
                while process.isAlive && Date() < deadline { usleep(10_000) }
                guard !process.isAlive else { return nil }
                process.reap()
                return process.reapedTerminationStatus
            }
        }
    }

    static func fermata(_ arguments: [String], environment: [String: String]) async throws -> String {
        try await FermataProgram.output(DeployTests.binaries + "/fermata", arguments, environment: environment)
    }

    /// Polls `fermata status` (every 100 ms, up to 15 minutes: a first run makes the demo library in Python, 2 s
    /// here and more than 4 minutes on an emulated arm64 CPU) until `predicate` holds on its output.
    static func status(_ environment: [String: String], until predicate: (String) -> Bool) async throws -> String {
        var last = ""
        let deadline = ContinuousClock.now + .seconds(900)
        while ContinuousClock.now < deadline {
            last = (try? await fermata(["status"], environment: environment)) ?? ""
            if predicate(last) { return last }
            try await Task.sleep(for: .milliseconds(100))
        }
        return last
    }

    /// The elapsed whole seconds of `fermata status`'s "time  M:SS / M:SS" line.
    static func elapsed(_ status: String) -> Int? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("time") }),
              let clock = line.split(separator: " ").dropFirst().first else { return nil }
        let parts = clock.split(separator: ":").compactMap { Int($0) }
        return parts.count == 2 ? parts[0] * 60 + parts[1] : nil
    }

    @Test func theDemoJukeboxPlaysStopsAndResumes() async throws {
        let folder = try TemporaryDirectory(prefix: "fermata-try")
        let clone = folder.file("fermata"), home = folder.file("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let cloned = try await DeployTests().run("/usr/bin/git", ["clone", "--quiet", DeployTests.project, clone])
        try #require(cloned.status == 0, "git clone: \(cloned.output)")
        let port = TestSocket.freePort()
        let environment = ["HOME": home, "PATH": "/usr/bin:/bin", "FERMATA_BIN_DIR": DeployTests.binaries,
                           "FERMATA_LISTEN": "127.0.0.1:\(port)"]

        let first = try Run(script: clone + "/deploy/try-fermata.sh", environment: environment, log: folder.file("1.log"))
        let playing = try await Self.status(environment) { $0.hasPrefix("playing") }
        #expect(playing.hasPrefix("playing  1/7"), "the demo library queued and playing: \(playing)\n\(first.text)")
        #expect(first.text.contains("fermata status"), "how to drive it is printed first")
        let mpc = try await FermataProgram.output("/usr/bin/mpc", ["-p", "\(port)", "playlist"], environment: environment)
        #expect(mpc.split(separator: "\n").count == 7 && mpc.contains("Slow Blues in A"), "\(mpc)")
        // Paused at a known place before Ctrl-C, so what is saved does not depend on how fast this machine polls:
        // paused first, then song 1 at 0:04 in one command list (MPD's `seek SONGPOS TIME` keeps a pause). A seek
        // then a pause, two CLI runs apart, let a loaded CI machine play on past the short demo songs into song 4.
        let script = "import socket; s = socket.create_connection(('127.0.0.1', \(port))); s.recv(64); "
            + "s.sendall(b'command_list_begin\\npause 1\\nseek 0 4\\ncommand_list_end\\n'); print(s.recv(256))"
        let placed = try await FermataProgram.output("/usr/bin/python3", ["-c", script], environment: environment)
        #expect(placed.contains("OK"), "pause and seek: \(placed)")
        let before = try await Self.status(environment) { $0.hasPrefix("paused") }
        let saved = Self.elapsed(before)
        try #require(before.hasPrefix("paused  1/7") && saved.map { (4...10).contains($0) } == true,
                     "paused a few seconds after a seek to 0:04 of song 1: \(before)")
        #expect(try await first.interrupt() == 0, "Ctrl-C stops it cleanly: \(first.text)")
        #expect(first.text.contains("state saved"), "\(first.text)")

        let second = try Run(script: clone + "/deploy/try-fermata.sh", environment: environment,
                             log: folder.file("2.log"))
        let resumed = try await Self.status(environment) { $0.hasPrefix("paused") || $0.hasPrefix("playing") }
        #expect(resumed.hasPrefix("paused  1/7") && Self.elapsed(resumed) == saved,
                "the saved song and position: \(before) then \(resumed)\n\(second.text)")
        #expect(!second.text.contains("making a demo library"), "the demo is made once")
        _ = try await Self.fermata(["play"], environment: environment)
        let playing2 = try await Self.status(environment) { $0.hasPrefix("playing") }
        #expect(playing2.hasPrefix("playing  1/7") && (Self.elapsed(playing2) ?? 0) >= (saved ?? 99),
                "play goes on from the saved position: \(playing2)")
        #expect(try await second.interrupt() == 0, "\(second.text)")
    }
}

extension TryFermataTests {
    /// An owner whose `~/Music` holds MP3, M4A or Opus files gets their music, not the demo library (issue 35: the
    /// script looked for FLAC, Ogg and WAV only). Each format alone in `~/Music`, made by its usual encoder: the
    /// script starts fermatad on that folder, which plays it.
    @Test(arguments: [LossyFixture.Kind.mp3, .aac, .opus])
    func theOwnersMusicIsFoundWhateverItsFormat(_ kind: LossyFixture.Kind) async throws {
        let folder = try TemporaryDirectory(prefix: "fermata-try-\(kind.fileExtension)")
        let clone = folder.file("fermata"), home = folder.file("home"), album = home + "/Music/Owner/Album"
        try FileManager.default.createDirectory(atPath: album, withIntermediateDirectories: true)
        let wav = folder.file("tone.wav")
        // A minute long: a 3 s tone had played to its end, on a loaded CI machine, before a `fermata status` poll
        // (a process start each) saw it playing, and the test read "stopped" for 15 minutes.
        let samples = (0..<(44_100 * 60)).map { Int32(8_000 * sin(Double($0) * 2 * .pi * 440 / 44_100)) }
        try WAVFixture.write(path: wav, samples: samples, channels: 1, sampleRate: 44_100, kind: .pcm16)
        try LossyFixture.encode(kind, wav: wav, to: album + "/01 Tone." + kind.fileExtension)
        let cloned = try await DeployTests().run("/usr/bin/git", ["clone", "--quiet", DeployTests.project, clone])
        try #require(cloned.status == 0, "git clone: \(cloned.output)")
        let environment = ["HOME": home, "PATH": "/usr/bin:/bin", "FERMATA_BIN_DIR": DeployTests.binaries,
                           "FERMATA_LISTEN": "127.0.0.1:\(TestSocket.freePort())"]
        let run = try Run(script: clone + "/deploy/try-fermata.sh", environment: environment, log: folder.file("1.log"))
        let playing = try await Self.status(environment) { $0.hasPrefix("playing") }
        #expect(run.text.contains("music from \(home)/Music,"), "\(run.text)")
        #expect(!run.text.contains("making a demo library"), "\(run.text)")
        #expect(playing.hasPrefix("playing  1/1") && playing.contains("Tone"), "the owner's one file: \(playing)")
        #expect(try await run.interrupt() == 0, "\(run.text)")
    }
}

/// Runs a program to its end and returns its standard output (blocking calls on a thread of their own).
enum FermataProgram {
    static func output(_ path: String, _ arguments: [String], environment: [String: String]) async throws -> String {
        try await onThread {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = arguments
            process.environment = environment
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.reap()
            return String(decoding: data, as: UTF8.self)
        }
    }
}
