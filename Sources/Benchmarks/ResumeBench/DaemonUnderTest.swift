import Foundation
import Glibc
import TestSupport

/// One daemon the resume benchmark starts and stops: fermatad, or MPD 0.23 with an equivalent configuration (paced
/// null output, state saved on SIGTERM, restored playing).
struct DaemonUnderTest {
    enum Kind: String {
        case fermata
        case mpd
    }

    let kind: Kind
    let binaries: String
    let music: String
    let state: String
    let port: Int

    /// Starts the daemon; stderr goes to `state/stderr.log`.
    func start() throws -> Process {
        let process = Process()
        switch kind {
        case .fermata:
            process.executableURL = URL(fileURLWithPath: binaries + "/fermatad")
            process.arguments = ["--music", music, "--state", state, "--output", "null", "--socket", "",
                                 "--listen", "127.0.0.1:\(port)", "--resume", "playing"]
        case .mpd:
            let config = state + "/mpd.conf"
            try """
            music_directory "\(music)"
            db_file "\(state)/db"
            state_file "\(state)/state"
            playlist_directory "\(state)/playlists"
            bind_to_address "127.0.0.1"
            port "\(port)"
            restore_paused "no"
            auto_update "no"
            zeroconf_enabled "no"
            audio_output {
                type "null"
                name "paced-null"
                sync "yes"
            }
            """.write(toFile: config, atomically: true, encoding: .utf8)
            try FileManager.default.createDirectory(atPath: state + "/playlists", withIntermediateDirectories: true)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/mpd")
            process.arguments = ["--no-daemon", "--stderr", config]
        }
        _ = FileManager.default.createFile(atPath: state + "/stderr.log", contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: state + "/stderr.log"))
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Connects, polling every `interval` microseconds (at most 60 s).
    func connect(interval: UInt32 = 1000) throws -> MPDTestClient {
        for _ in 0..<Int(60_000_000 / interval) {
            if let client = (try? MPDTestClient(port: port)) { return client }
            usleep(interval)
        }
        throw MPDTestClient.Failure(description: "\(kind) never accepted a connection")
    }

    static func stop(_ process: Process) {
        process.terminate()
        process.waitUntilExit()
    }
}

/// `key: value` from /proc/PID/status or /proc/PID/io.
func procField(_ pid: Int32, _ file: String, _ key: String) -> Int {
    let text = (try? String(contentsOfFile: "/proc/\(pid)/\(file)", encoding: .utf8)) ?? ""
    let line = text.split(separator: "\n").first { $0.hasPrefix(key + ":") } ?? ""
    return Int(line.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "") ?? -1
}
