import ArgumentParser
import AudioCore
import Controls
import Daemon
import FermataConfig
import FermataCore
import Foundation
import Logging

/// `fermatad`: the Fermata daemon. Configuration from a file (default /etc/fermata/fermata.toml, optional) with
/// command-line overrides; a configuration error stops it with the file, line and key (exit status 78).
///
/// Run by the `fermatad` program, and by the installed `fermata` program when it is called as `fermatad` (one binary
/// for both, so a board carries the Swift and Foundation runtime once).
public struct Fermatad: AsyncParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "fermatad", abstract: "The Fermata daemon: gapless playback, resume after power loss, MPD protocol.",
        version: FermataVersion.number)

    @Option(help: "Configuration file (default /etc/fermata/fermata.toml, used when present).")
    var config: String?
    @Option(help: "Music directory.") var music: String?
    @Option(help: "State directory (the database).") var state: String?
    @Option(help: "ALSA PCM name, `null` (paced, discarded) or file:PATH.") var output: String?
    @Option(help: "TCP HOST:PORT for MPD clients (empty: none).") var listen: String?
    @Option(help: "Unix socket for MPD clients and the CLI (empty: none).") var socket: String?
    @Option(help: "The web remote's HTTP HOST:PORT (empty: off).") var web: String?
    @Option(help: "After a restart: playing, paused or off.") var resume: String?
    @Option(help: "Seconds between position saves while playing.") var checkpointInterval: String?
    @Option(help: "Board profile for the buttons and encoder: auto, off, a profile name or a path.") var board: String?
    @Flag(help: "Print the documented default configuration and exit.") var printDefaultConfig = false
    @Flag(help: ArgumentHelp("Print the board profile matching this machine's device-tree model and exit "
        + "(status 1 when none matches). deploy/install.sh asks this.")) var detectBoard = false
    @Option(help: ArgumentHelp("With --detect-board: the profiles' folder (default: the installed ones).",
                               valueName: "dir")) var boards: String?
    @Option(help: ArgumentHelp("With --detect-board: the model file (default /sys/firmware/devicetree/base/model).",
                               valueName: "file")) var modelFile: String?

    public func run() async throws {
        let started = ContinuousClock.now
        if printDefaultConfig {
            print(DaemonConfig.documentedDefaults(), terminator: "")
            return
        }
        if detectBoard {
            let model = try? String(contentsOfFile: modelFile ?? BoardProfile.modelFile, encoding: .utf8)
            let directories = boards.map { [$0] } ?? BoardProfile.directories
            guard let file = BoardProfile.detect(inFirstOf: directories, model: model ?? "") else {
                let machine = model.map { "\"\(BoardProfile.machineName($0))\"" } ?? "(no model file)"
                let message = "fermatad: no board profile in \(directories.joined(separator: ", ")) matches \(machine)\n"
                FileHandle.standardError.write(Data(message.utf8))
                throw ExitCode(1)
            }
            print(URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent)
            return
        }
        // Two arenas: a 20,000-track scan followed by 16,384 queued `add`s left 4-6 MiB more resident with glibc's
        // default (up to 8 per core) — freed heap spread over a dozen arenas (`Tests/Tools/lossy-bench.sh --tests
        // queue`). The audio thread allocates nothing, so it never waits on an arena's lock.
        HeapTrim.limitArenas(to: 2)
        let settings: DaemonConfig
        let controls: ControlsSetup
        do {
            settings = try loadConfiguration()
            controls = try ControlsSetup.resolve(settings)
        } catch {
            FileHandle.standardError.write(Data("fermatad: configuration error: \(error)\n".utf8))
            throw ExitCode(78)
        }
        LoggingSystem.bootstrap { label in
            var handler = JournalLogHandler(label: label)
            handler.logLevel = Logger.Level(settings.logLevel)
            return handler
        }
        let logger = Logger(label: "fermatad")
        // MPD reopens its log files on SIGHUP/SIGUSR1, so logrotate hooks written for it send them; fermatad logs to
        // stderr (the journal) and has nothing to reopen. Their default action ended the jukebox without a word.
        signal(SIGHUP, SIG_IGN)
        signal(SIGUSR1, SIG_IGN)
        do {
            try await DaemonRuntime(config: settings, controls: controls, logger: logger, started: started).run()
        } catch {
            logger.critical("fermatad stopped: \(error)")
            throw ExitCode(1)
        }
    }

    private func loadConfiguration() throws -> DaemonConfig {
        var settings = try DaemonConfig.load(file: config ?? "/etc/fermata/fermata.toml", required: config != nil)
        // A normal user with no configuration file: places that user can write (the system ones are the service's).
        UserPlaces.applyForNormalUser(to: &settings)
        let overrides: [(String, String?, String)] = [
            ("paths.music", music, "--music"), ("paths.state", state, "--state"), ("audio.output", output, "--output"),
            ("mpd.listen", listen, "--listen"), ("mpd.socket", socket, "--socket"), ("web.listen", web, "--web"),
            ("playback.resume", resume, "--resume"),
            ("playback.checkpoint_interval", checkpointInterval, "--checkpoint-interval"), ("controls.board", board, "--board"),
        ]
        for (key, value, flag) in overrides { if let value { try settings.override(key, with: value, flag: flag) } }
        return settings
    }
}

extension Logger.Level {
    /// The swift-log level of the configuration's `log.level`.
    init(_ level: LogLevel) {
        self = switch level {
        case .trace: .trace
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        }
    }
}
