import Foundation
import Glibc
import Testing
import TestSupport

/// What the web remote's end-to-end tests drive: the built `fermatad` and `fermata`, Debian's `python3` with
/// python3-selenium, `chromium` and `chromium-driver`, the scripts in `browser/` beside this file, and (for the
/// schemathesis run) a python that has schemathesis.
///
/// Stateless; `run` may be called from any thread (it blocks: call it through `onThread`).
enum WebPrograms {
    static let python = "/usr/bin/python3"
    static let chromium = "/usr/bin/chromium"
    static let chromedriver = "/usr/bin/chromedriver"
    /// (No bytecode caches beside the scripts: the source tree stays as it is.)
    static let environment = ["PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "LANG": "C.UTF-8", "HOME": "/tmp",
                              "PYTHONDONTWRITEBYTECODE": "1"]

    /// Tests/WebE2ETests/browser: the Python scripts (excluded from the target's sources).
    static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("browser").path
    /// The committed OpenAPI document the server is held to.
    static let openAPI = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/WebRemote/Assets/openapi.yaml").path

    static func built(_ name: String) -> String { FermatadProcess.built(name) }

    static func script(_ name: String) -> String { scripts + "/" + name }

    /// Runs `path` to completion with the tests' environment; `timeout` is a hang detector.
    static func run(_ path: String, _ arguments: [String], environment: [String: String]? = WebPrograms.environment,
                    timeout: Double = Patience.stallSeconds) throws -> ProgramResult {
        try ProgramResult.run(path, arguments, environment: environment, timeout: timeout)
    }

    /// Headless Chromium through Selenium: Debian's chromium, chromium-driver and python3-selenium.
    static let hasBrowser: Bool = {
        let files = FileManager.default
        guard files.isExecutableFile(atPath: chromium), files.isExecutableFile(atPath: chromedriver) else { return false }
        return (try? run(python, ["-c", "import selenium"]).status) == 0
    }()

    /// The real interpreter (not a shim) of the first python that imports schemathesis: `$FERMATA_SCHEMATHESIS_PYTHON`,
    /// then each `python3` on this process's PATH, then /usr/local/bin and /usr/bin; nil when none does.
    static let schemathesisPython: String? = {
        let inherited = ProcessInfo.processInfo.environment
        var candidates: [String] = []
        if let chosen = inherited["FERMATA_SCHEMATHESIS_PYTHON"], !chosen.isEmpty { candidates.append(chosen) }
        for directory in (inherited["PATH"] ?? "").split(separator: ":") { candidates.append(directory + "/python3") }
        candidates += ["/usr/local/bin/python3", "/usr/bin/python3"]
        for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate) {
            // With this process's environment: a pyenv shim needs its variables to find its interpreter.
            guard let probe = try? run(candidate, ["-c", "import schemathesis, sys; print(sys.executable)"],
                                       environment: nil, timeout: Patience.stallSeconds),
                  probe.status == 0 else { continue }
            let executable = probe.output.trimmingCharacters(in: .whitespacesAndNewlines)
            if FileManager.default.isExecutableFile(atPath: executable) { return executable }
        }
        return nil
    }()

    /// iproute2's `ip`, when this process may use it to make network namespaces (root).
    static let ip: String? = {
        guard getuid() == 0 else { return nil }
        return ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Where the screenshots go: `$FERMATA_WEB_SHOTS`, else `<temp>/fermata-web-shots`.
    static var shotsFolder: String {
        if let folder = ProcessInfo.processInfo.environment["FERMATA_WEB_SHOTS"], !folder.isEmpty { return folder }
        return (NSTemporaryDirectory() as NSString).appendingPathComponent("fermata-web-shots")
    }
}

/// One script's result: the JSON line it ends with (`browser/common.py`'s `Report`).
struct ScriptResult: Sendable, CustomStringConvertible {
    struct Check: Sendable {
        let name: String
        let ok: Bool
        let detail: String
    }

    let script: String
    let checks: [Check]
    /// Seconds, by what was timed (`total`: the whole script).
    let timings: [String: Double]
    /// The `info` object, as JSON text.
    let info: String

    var description: String {
        let failed = checks.filter { !$0.ok }.map(\.name)
        return "\(script): \(checks.count) checks, \(failed.isEmpty ? "all passed" : "failed: \(failed)"); "
            + "timings \(timings.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value) s" }.joined(separator: ", ")); "
            + "info \(info)"
    }

    /// The last line of `output` that parses as the result object; nil when there is none.
    static func parse(_ output: String) -> ScriptResult? {
        for line in output.split(separator: "\n").reversed() where line.hasPrefix("{") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let script = object["script"] as? String, let checks = object["checks"] as? [[String: Any]] else { continue }
            let parsed = checks.map {
                Check(name: $0["name"] as? String ?? "?", ok: $0["ok"] as? Bool ?? false, detail: $0["detail"] as? String ?? "")
            }
            var timings: [String: Double] = [:]
            for (key, value) in object["timings"] as? [String: Any] ?? [:] {
                if let number = value as? NSNumber { timings[key] = number.doubleValue }
            }
            let info = (object["info"]).flatMap { try? JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]) }
                .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            return ScriptResult(script: script, checks: parsed, timings: timings, info: info)
        }
        return nil
    }
}

/// Runs the scripts of `browser/` and turns their results into expectations.
enum Scripts {
    /// Runs `browser/NAME` with `settings` (as its one JSON argument) under `python` (through `prefix`, e.g.
    /// `ip netns exec NS`); the whole run is bounded by `Patience.ceilingSeconds` (a hang detector: the script's own
    /// waits end on conditions, each with `Patience.stallSeconds` as its stall bound). Prints the result (timings
    /// included) and expects every check to have passed; returns the result.
    @discardableResult
    static func run(_ name: String, _ settings: [String: Any], python: String = WebPrograms.python, prefix: [String] = [],
                    sourceLocation: SourceLocation = #_sourceLocation) async throws -> ScriptResult? {
        var settings = settings
        settings["stall"] = settings["stall"] ?? Patience.stallSeconds
        let json = String(decoding: try JSONSerialization.data(withJSONObject: settings, options: [.sortedKeys]), as: UTF8.self)
        let program = prefix.first ?? python
        let arguments = Array(prefix.dropFirst()) + (prefix.isEmpty ? [] : [python]) + [WebPrograms.script(name), json]
        let started = Date()
        let outcome = try await onThread {
            try WebPrograms.run(program, arguments, timeout: Patience.ceilingSeconds)
        }
        let wall = Date().timeIntervalSince(started)
        guard let result = ScriptResult.parse(outcome.output) else {
            Issue.record("\(name) printed no result line (exit \(outcome.status)): \(outcome)", sourceLocation: sourceLocation)
            return nil
        }
        print("web e2e: \(name) took \(String(format: "%.1f", wall)) s: \(result)")
        #expect(outcome.status == 0, "\(name) exited \(outcome.status): \(outcome.stderr.suffix(3000))",
                sourceLocation: sourceLocation)
        #expect(!result.checks.isEmpty, "\(name) checked nothing", sourceLocation: sourceLocation)
        for check in result.checks {
            #expect(check.ok, "\(name): \(check.name): \(check.detail)", sourceLocation: sourceLocation)
        }
        return result
    }
}

/// A real `fermatad` (a `FermatadProcess`) with its web remote on, on a library `browser/make_library.py` generates,
/// in a fresh temporary directory: MPD on a free 127.0.0.1 port and on `state/mpd.sock`, the web remote on
/// `webHost`:a free port (`--web`), the library scanned before the test starts.
///
/// Created and stopped by one test through `WebDaemon.with`; every stored property is a constant.
final class WebDaemon: Sendable {
    /// What `make_library.py` writes: `small` (two albums of three 200 s tracks), `shelf` (those and six more
    /// albums), `big` (tiny tracks: 200 artists x 10 albums x 10).
    enum Library: String, Sendable {
        case small, shelf, big
    }

    static let album = "Clara Brandt/Études for Strings"

    let root: TemporaryDirectory
    let music: String
    let state: String
    let webHost: String
    let webPort: Int
    /// Seconds: writing the library, then scanning it (`update` until `updating_db` has gone).
    let generation: Double
    let scan: Double
    let songs: Int
    private let process: FermatadProcess

    var mpdPort: Int { process.port }
    var socketPath: String { state + "/mpd.sock" }
    var log: String { process.log }
    /// The page, from the box itself (loopback: the owner, no login); with a wildcard `webHost`, on 127.0.0.1.
    var base: String { "http://\(webHost == "0.0.0.0" ? "127.0.0.1" : webHost):\(webPort)/" }

    /// The settings every script takes.
    var settings: [String: Any] {
        ["base": base, "mpd_port": mpdPort, "web_port": webPort, "socket": socketPath, "album": Self.album,
         "fermata": WebPrograms.built("fermata"), "stall": Patience.stallSeconds]
    }

    /// Starts a daemon, runs `body`, then stops the daemon (SIGTERM) and expects it to exit with status 0.
    @discardableResult
    static func with<T>(library: Library = .small, tracks: Int? = nil, webHost: String = "127.0.0.1",
                        config: Config = Config(), _ body: (WebDaemon) async throws -> T) async throws -> T {
        for binary in ["fermatad", "fermata"] {
            let path = WebPrograms.built(binary)
            try #require(FileManager.default.isExecutableFile(atPath: path), "`swift test` builds \(path)")
        }
        let daemon = try await onThread { try WebDaemon(library: library, tracks: tracks, webHost: webHost, config: config) }
        let result: T
        do {
            result = try await body(daemon)
        } catch {
            _ = try? await onThread { daemon.process.stop() }
            throw error
        }
        let status = try await onThread { daemon.process.stop() }
        #expect(status == 0, "fermatad after SIGTERM; its log:\n\(daemon.log.suffix(6000))")
        return result
    }

    /// What a test adds to the daemon's configuration file and environment (a capture device and the alsa-lib
    /// configuration that defines it: `ALSA_CONFIG_PATH`), given the daemon's temporary folder.
    struct Config: Sendable {
        var toml: @Sendable (_ root: String) -> String = { _ in "" }
        var environment: @Sendable (_ root: String) -> [String: String] = { _ in [:] }
        /// Files written in the temporary folder before the daemon starts: name → contents.
        var files: @Sendable (_ root: String) -> [String: String] = { _ in [:] }
    }

    private init(library: Library, tracks: Int?, webHost: String, config: Config) throws {
        root = try TemporaryDirectory(prefix: "fermata-web")
        music = root.file("music")
        state = root.file("state")
        self.webHost = webHost
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let made = try WebPrograms.run(WebPrograms.python, [WebPrograms.script("make_library.py"), library.rawValue, music]
                                           + (tracks.map { [String($0)] } ?? []), timeout: Patience.ceilingSeconds)
        guard made.status == 0,
              let object = try? JSONSerialization.jsonObject(with: made.stdout) as? [String: Any],
              let seconds = (object["seconds"] as? NSNumber)?.doubleValue else {
            throw FermatadProcess.Failure(description: "make_library.py \(library.rawValue): \(made)")
        }
        generation = seconds
        // An explicit configuration file, so a host's /etc/fermata/fermata.toml cannot change the test.
        try Data(("# fermata web end-to-end tests\n" + config.toml(root.path)).utf8).write(to: root.url("fermata.toml"))
        for (name, contents) in config.files(root.path) { try Data(contents.utf8).write(to: root.url(name)) }
        let (launched, port) = try Self.launch(root: root, music: music, state: state, webHost: webHost,
                                               environment: config.environment(root.path))
        process = launched
        webPort = port
        let started = Date()
        songs = try Self.scan(port: launched.port, log: { launched.log })
        scan = Date().timeIntervalSince(started)
    }

    /// Starts fermatad on free ports (others, up to four times, when one was taken meanwhile) and waits until MPD
    /// answers and its Unix socket exists. The web remote starts beside it; the scripts wait for it to answer.
    private static func launch(root: TemporaryDirectory, music: String, state: String, webHost: String,
                               environment: [String: String]) throws -> (FermatadProcess, Int) {
        let socketPath = state + "/mpd.sock"
        let logPath = state + "/fermatad.log"
        var lastLog = ""
        for _ in 0..<4 {
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
            let webPort = TestSocket.freePort()
            let process = try FermatadProcess(
                arguments: ["--config", root.file("fermata.toml"), "--music", music, "--state", state,
                            "--output", "null", "--socket", socketPath, "--web", "\(webHost):\(webPort)"],
                port: TestSocket.freePort(), logPath: logPath,
                environment: WebPrograms.environment.merging(environment) { $1 })
            let answering = process.waitUntilAnswering(within: Patience.stallSeconds, and: {
                FileManager.default.fileExists(atPath: socketPath)
            })
            switch answering {
            case .answering:
                return (process, webPort)
            case .timedOut:
                throw FermatadProcess.Failure(description: "fermatad not answering on port \(process.port) after "
                                                  + "\(Int(Patience.stallSeconds)) s; log:\n\(process.log)")
            case let .exited(status):
                lastLog = process.log
                guard lastLog.contains("in use") else {
                    throw FermatadProcess.Failure(description: "fermatad exited (\(status)); its log:\n\(lastLog)")
                }
            }
        }
        throw FermatadProcess.Failure(description: "fermatad found no free port; its last log:\n\(lastLog)")
    }

    /// `update`, then waits until `updating_db` has gone from `status`; the wait ends only when the scan makes no
    /// progress (the song count) for `Patience.stallSeconds`. The library's song count.
    private static func scan(port: Int, log: () -> String) throws -> Int {
        let client = try MPDTestClient(port: port)
        _ = try client.ok("update")
        func songs() -> Int { Int((try? MPDTestClient(port: port).command("stats"))?["songs"] ?? "") ?? -1 }
        let finished = waitWhileProgressing(progress: songs) {
            ((try? MPDTestClient(port: port).command("status"))?["updating_db"]) == nil
        }
        guard finished else {
            throw FermatadProcess.Failure(description: "the scan stalled at \(songs()) songs; log:\n\(log())")
        }
        return songs()
    }

    /// One protocol command on a fresh connection.
    func command(_ line: String) async throws -> MPDReply {
        let port = mpdPort
        return try await onThread { try MPDTestClient(port: port).command(line) }
    }
}
