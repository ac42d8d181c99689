import ArgumentParser
import AudioCore
import AudioOutput
import Controls
import Engine
import FermataCore
import Foundation
import Logging
import Player

/// `fermata gpio`: physical controls tools.
struct GPIOCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gpio", abstract: "Physical controls: check the wiring of buttons and encoders.",
        subcommands: [GPIOMonitorCommand.self])
}

/// `fermata gpio monitor`: runs the controls service on the real lines and prints every edge, gesture and action as
/// it happens — for wiring checks. With audio files it also drives a local player and prints its state after each
/// action.
struct GPIOMonitorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Show live button and encoder events (wiring check).",
        discussion: """
        Uses the board profile (--board, else the one matching the device tree's model in /etc/fermata/boards, \
        /usr/share/fermata/boards or ./boards) with the controls sections of --config applied on top. Each output \
        line is: seconds since start, the kind (ready, edge, button, gesture, encoder, chord, action, player) and \
        the details. Stop with Ctrl-C or --duration.
        """)

    @Option(help: "Board profile (boards/*.toml).") var board: String?
    @Option(help: "fermata.toml whose [controls], [button-*], [encoder-*] and [chord-*] sections override the board.")
    var config: String?
    @Option(name: .customLong("line"), help: "Watch this line as a plain button (NAME or CHIP:OFFSET); repeatable.")
    var lines: [String] = []
    @Flag(help: "Also print every raw edge with its kernel timestamp (ns).") var raw = false
    @Option(help: "Replay edges from a file (TIME_NS LINE LEVEL lines, or --raw output) in real time, not GPIO.")
    var replay: String?
    @Option(help: "Stop after this many seconds.") var duration: Double?
    @Option(help: "With FILEs: where the player's audio goes (null, auto, file:PATH or an ALSA PCM).")
    var output = "null"
    @Argument(help: "Audio files: drive a local player with the controls and print its state after each action.")
    var files: [String] = []

    func validate() throws {
        if board == nil && lines.isEmpty && Self.detectedBoard() == nil {
            throw ValidationError("no board profile matches this machine: give --board FILE or --line NAME")
        }
        for line in lines where LineRef(parsing: line) == nil { throw ValidationError("bad --line '\(line)'") }
        // Checked here: `Int(seconds * 1000)` traps on NaN, infinity or 1e300.
        if let duration, !(duration > 0 && duration <= 86_400) {
            throw ValidationError("--duration must be seconds from 0 to 86400")
        }
    }

    func run() async throws {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        let logger = Logger(label: "fermata.gpio")
        let profile = try loadProfile()
        for warning in profile.warnings { logger.warning("\(warning)") }
        let started = MonotonicClock.nanoseconds()
        let out = MonitorPrinter(started: started)
        let library = GPIOInputService.libraryDescription(debounceMs: profile.controls.debounceMs)
        out.line(0, "fermata gpio monitor: \(library)" + (profile.name.isEmpty ? "" : "; board \(profile.name)"))
        for line in Self.describe(profile.controls) { out.line(0, "  " + line) }
        let local = files.isEmpty ? nil : try await LocalPlayer(files: files, output: output, logger: logger)
        let player: any PlayerControl = local?.player ?? SilentPlayer()
        var input = ControlsInput.gpio
        if let replay { input = try EdgeReplay.start(file: replay, keymap: Keymap(profile.controls)) }
        let service = GPIOInputService(
            config: profile.controls, player: player, logger: logger, input: input, reportEdges: raw,
            extraActions: { _ in },  // tempo, announce, shutdown: shown as actions, nothing to do here
            observer: { event in
                out.line(event.monitorLine(since: started))
                if case .action = event, let local { await local.report(out, at: MonotonicClock.nanoseconds() - started) }
            })
        let task = Task { try await service.run() }
        let signals = Self.cancelOnSignals(task)
        let timer = duration.map { seconds in
            Task {
                try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
                task.cancel()
            }
        }
        try await task.value
        timer?.cancel()
        for source in signals { source.cancel() }
        await local?.shutdown()
    }

    /// Cancels `task` on SIGINT or SIGTERM; the sources must be kept until then.
    static func cancelOnSignals(_ task: Task<Void, any Error>) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { task.cancel() }
            source.resume()
            return source
        }
    }

    static func detectedBoard() -> String? {
        BoardProfile.detect(inFirstOf: BoardProfile.directories + ["boards"])
    }

    private func loadProfile() throws -> BoardProfile {
        var overrides: [ProfileEntry] = []
        if let config {
            let text = try String(contentsOfFile: config, encoding: .utf8)
            overrides = try InputProfile.expand(
                ProfileFile.parse(text, file: config).filter { BoardProfile.isControlsSection($0.section) },
                directories: InputProfile.directories + ["boards/inputs"])
        }
        for (index, line) in lines.enumerated() {
            let section = "button-line\(index + 1)"
            overrides.append(ProfileEntry(section: section, key: "line", value: .string(line), file: "--line", line: 0))
        }
        if let file = board ?? (lines.isEmpty ? Self.detectedBoard() : nil) {
            return try BoardProfile.load(file: file, overrides: overrides)
        }
        return try BoardProfile(entries: overrides)
    }

    static func describe(_ controls: ControlsConfig) -> [String] {
        let keymap = Keymap(controls)
        var out = controls.buttons.indices.map { i in
            "button \(controls.buttons[i].name) on \(controls.buttons[i].line): \(keymap.describe(button: i))"
        }
        out += controls.encoders.map { e in
            "encoder \(e.name) on \(e.a)/\(e.b): clockwise \(e.clockwise.map { "\($0)" } ?? "none"), "
                + "counterclockwise \(e.counterClockwise.map { "\($0)" } ?? "none"), "
                + "\(e.transitionsPerDetent) transitions per detent"
        }
        out += controls.chords.map { "chord \($0.name): \($0.buttons.joined(separator: " + ")) → \($0.action)" }
        return out
    }
}

/// Prints monitor lines at once (stdout may be a file or a pipe). Any thread.
struct MonitorPrinter: Sendable {
    let started: UInt64

    func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    func line(_ elapsed: UInt64, _ text: String) {
        line(String(format: "%10.6f  ", Double(elapsed) / 1e9) + text)
    }
}

/// Takes every action and does nothing: the monitor without a player.
struct SilentPlayer: PlayerControl {
    func perform(_ action: ControlAction) async throws {}
    func status() async -> PlayerStatus { PlayerStatus() }
}

/// The player `fermata gpio monitor FILE...` drives: the real engine and `Player` actor on the chosen output
/// (paced null by default), playing the files from the start. Created and shut down by the monitor's main task;
/// `report` may be called from any task.
final class LocalPlayer: Sendable {
    let player: Player
    private let engine: PlaybackEngine
    private let events: Task<Void, Never>

    init(files: [String], output: String, logger: Logger) async throws {
        let spec = OutputSpec(parsing: output)
        engine = PlaybackEngine(sink: spec.makeSink(), config: EngineConfig())
        let player = Player(engine: engine, logger: logger)
        self.player = player
        events = Task { await player.run() }
        let ids = try await player.add(paths: files)
        guard let first = ids.first else { throw PlayerError.nothingToPlay }
        try await player.perform(.playEntry(first))
        logger.info("playing \(files.count) file(s) to \(spec.destination)")
    }

    /// Why the local player could not start.
    enum PlayerError: Error, CustomStringConvertible {
        case nothingToPlay
        var description: String { "none of the files can be played" }
    }

    /// Prints the player's state after an action.
    func report(_ out: MonitorPrinter, at elapsed: UInt64) async {
        let s = await player.status()
        let loop = s.loop.map { "\($0.start)..<\($0.end)" } ?? (s.loopPendingA.map { "A=\($0)" } ?? "none")
        let entry = s.entryID.map(String.init) ?? "-"
        out.line(elapsed, "player  \(s.state.rawValue) entry \(entry) volume \(s.volume) "
            + "repeat \(s.repeatMode.rawValue) loop \(loop) elapsed \(String(format: "%.2f", s.elapsed))")
    }

    func shutdown() async {
        try? await player.perform(.stop)
        engine.shutdown()
        events.cancel()
    }
}

/// Replays a recorded edge file into the service's record input, keeping the recorded spacing (from now on).
/// Lines: "TIME_NS LINE LEVEL" or the monitor's "--raw" edge lines ("... edge LINE LEVEL @TIME_NS").
enum EdgeReplay {
    static func start(file: String, keymap: Keymap) throws -> ControlsInput {
        var edges: [RawEdge] = []
        for row in try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n") {
            var words = row.split(separator: " ").map(String.init)
            if let at = words.firstIndex(of: "edge"), words.count > at + 3 {
                words = [String(words[at + 3].dropFirst()), words[at + 1], words[at + 2]]
            }
            guard words.count == 3, let time = UInt64(words[0]) else { continue }
            guard let line = keymap.lines.firstIndex(where: { $0.ref.description == words[1] }) else {
                throw ValidationError("\(file): no control uses line \(words[1])")
            }
            edges.append(RawEdge(line: line, level: words[2] == "1", time: time))
        }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0, let first = edges.first?.time else { throw ValidationError("\(file): no edges") }
        let writer = fds[1]
        let recorded = edges
        WorkerThread.detached(name: "fermata-replay") {
            let start = MonotonicClock.nanoseconds()
            for edge in recorded {
                let due = start + (edge.time - first)
                let now = MonotonicClock.nanoseconds()
                if due > now { usleep(UInt32(min((due - now) / 1000, 10_000_000))) }
                var shifted = edge
                shifted.time = due
                let bytes = PipeEdgeSource.record(shifted)
                _ = bytes.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
            }
        }
        return .records(fd: fds[0], userDebounce: true)
    }
}
