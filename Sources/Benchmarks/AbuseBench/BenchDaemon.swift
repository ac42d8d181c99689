import AudioCore
import Foundation
import Glibc
import TestSupport

/// One daemon under test, started the way its users run it, in the foreground with its own state directory:
/// fermatad with the paced null output, or MPD 0.23 through the team's `daemon-mpd.sh` (its paced null output). Both
/// get systemd's watchdog variables (`NOTIFY_SOCKET` at the bench's socket, `WATCHDOG_USEC`, and `WATCHDOG_PID` set
/// to the daemon's own pid by an `exec`ing shell); MPD pings too when built with libsystemd.
///
/// Threads: one user.
final class BenchDaemon {
    /// Which daemon.
    enum Kind: String, CaseIterable {
        case fermatad
        case mpd = "MPD"
    }

    let kind: Kind
    let port: Int
    let state: String
    let watchdog: WatchdogListener
    private let executable: String
    private let music: String
    private var process: Process?

    /// `executable` is fermatad's binary, or the directory of `daemon-mpd.sh` for MPD.
    init(kind: Kind, executable: String, music: String, state: String, watchdog: WatchdogListener) throws {
        self.kind = kind
        self.executable = executable
        self.music = music
        self.state = state
        self.watchdog = watchdog
        port = TestSocket.freePort()
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
    }

    /// The running daemon's pid (0 before `start`).
    var pid: Int32 { process?.processIdentifier ?? 0 }

    /// The state directory's log files: fermatad logs to stderr, MPD to its `log_file`.
    var logFiles: [String] { kind == .fermatad ? [state + "/stderr.log"] : [state + "/log", state + "/stderr.log"] }

    func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = watchdog.path
        environment["WATCHDOG_USEC"] = "10000000"
        let daemon: [String]
        switch kind {
        case .fermatad:
            let config = state + "/fermata.toml"  // an empty file: no /etc/fermata settings leak in
            if !FileManager.default.fileExists(atPath: config) { _ = FileManager.default.createFile(atPath: config, contents: nil) }
            daemon = [executable, "--config", config, "--music", music, "--state", state, "--output", "null",
                      "--socket", "", "--listen", "127.0.0.1:\(port)", "--resume", "off", "--board", "off"]
        case .mpd:
            environment.merge([
                "BENCH_HOST": "127.0.0.1", "BENCH_PORT": "\(port)", "BENCH_MUSIC_DIR": music, "BENCH_STATE_DIR": state,
                "BENCH_OUTPUT": "paced", "BENCH_CAPTURE": "/dev/null", "BENCH_RESTORE_PAUSED": "no",
                "BENCH_STATE_INTERVAL": "", "ALSA_CONFIG_PATH": executable + "/asoundrc",
            ]) { $1 }
            daemon = ["/bin/bash", executable + "/daemon-mpd.sh"]
        }
        process.arguments = ["-c", "WATCHDOG_PID=$$; export WATCHDOG_PID; exec \"$0\" \"$@\""] + daemon
        process.environment = environment
        let stderrPath = state + "/stderr.log"
        if !FileManager.default.fileExists(atPath: stderrPath) { _ = FileManager.default.createFile(atPath: stderrPath, contents: nil) }
        let stderr = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        stderr.seekToEndOfFile()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        self.process = process
    }

    /// Connects, retrying while the daemon starts (at most `timeout` seconds).
    func connect(timeout: Double = 30) throws -> MPDConnection {
        let deadline = MonotonicClock.seconds() + timeout
        while true {
            do { return try MPDConnection(port: port) } catch {
                if let exit = exitDescription { throw MPDConnection.Failure(description: "\(kind.rawValue) \(exit)") }
                guard MonotonicClock.seconds() < deadline else { throw error }
                MonotonicClock.sleep(seconds: 0.02)
            }
        }
    }

    /// nil while the daemon runs; otherwise how it ended ("exited with status 1", "killed by signal 11").
    var exitDescription: String? {
        guard let process else { return "was never started" }
        guard !process.isAlive else { return nil }
        let status = process.reapedTerminationStatus
        return process.reapedTerminationReason == .exit ? "exited with status \(status)" : "killed by signal \(status)"
    }

    /// SIGTERM, then SIGKILL after 10 s.
    func stop() {
        guard let process, process.isAlive else { return }
        kill(process.processIdentifier, SIGTERM)
        if !process.reap(timeout: 10) {
            kill(process.processIdentifier, SIGKILL)
            process.reap(timeout: 10)
        }
    }

    /// The last `count` lines of the daemon's logs. Swift's crash report is cut to its verdict (what was logged
    /// before it says why; the register dump does not).
    func logTail(_ count: Int) -> [String] {
        logFiles.flatMap { path -> [String] in
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            var lines = text.split(separator: "\n").map(String.init)
            if let crash = lines.firstIndex(where: { $0.hasPrefix("*** Signal") || $0.hasPrefix("*** Program crashed") }) {
                let verdict = lines[crash...].first { $0.hasPrefix("*** Program crashed") }
                lines = Array(lines[..<crash]) + (verdict.map { [$0] } ?? [])
            }
            let tail = lines.suffix(count)
            return tail.isEmpty ? [] : ["(\((path as NSString).lastPathComponent))"] + tail
        }
    }

    /// Copies the logs to `directory` as KIND-NAME (the state directory is deleted at the end); returns the copies.
    func archiveLogs(to directory: String) -> [String] {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return logFiles.compactMap { path in
            let copy = directory + "/\(kind.rawValue)-" + (path as NSString).lastPathComponent
            try? FileManager.default.removeItem(atPath: copy)
            return (try? FileManager.default.copyItem(atPath: path, toPath: copy)) == nil ? nil : copy
        }
    }
}
