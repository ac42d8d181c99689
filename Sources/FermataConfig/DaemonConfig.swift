import FermataCore
import Foundation

/// The daemon's settings. Every key has a default; a file overrides defaults, command-line flags override the file.
/// `origins` records where each value came from (for `fermata config show`). A value type; any thread.
public struct DaemonConfig: Sendable, Equatable {
    public var musicDirectory = "/srv/music"
    public var stateDirectory = "/var/lib/fermata"
    public var output = "default"
    public var format = DeviceFormatSetting.fixed
    public var settleMilliseconds = 0
    public var periodMilliseconds = 5
    public var periods = 4
    public var decodeAheadMilliseconds = 1500
    public var loopCrossfadeMilliseconds = 5
    public var realtimePriority = 40
    public var volume = 100
    /// `audio.volume_max`: no path (buttons, encoder, clients, the CLI, a card) sets a volume above it.
    public var volumeMax = 100
    /// `audio.volume_min`: no path sets a volume below it (0: none); at most `volumeMax`.
    public var volumeMin = 0
    /// `audio.volume_start`: the volume at every start (-1: the saved one).
    public var volumeStart = -1
    public var replayGain = ReplayGainMode.off
    public var resume = ResumePolicy.playing
    public var repeatMode = RepeatMode.off
    public var checkpointInterval = 2.0
    public var scanOnStart = false
    public var practiceRemember = true
    /// `record.device`: the ALSA capture PCM for recording yourself (empty: off).
    public var recordDevice = ""
    /// `record.budget_mb`: the space the takes may use, in MiB (oldest deleted first).
    public var recordBudgetMB = 512
    /// `mpd.listen`: the TCP address for MPD clients (nil: no TCP).
    public var listen: ListenAddress? = ListenAddress(host: "127.0.0.1", port: 6600)
    public var socketPath = "/run/fermata/mpd.sock"
    public var password = ""
    /// `mpd.default_permissions`: what a client may do before it sends a password.
    public var defaultPermissions = Permission.all
    public var maxConnections = 100
    public var connectionTimeout = 60
    /// `web.listen`: the web remote's HTTP address (nil: off). Loopback by default, as the MPD port.
    public var webListen: ListenAddress? = ListenAddress(host: "127.0.0.1", port: 6680)
    /// `web.max_connections`: the web remote's simultaneous connections.
    public var webMaxConnections = 64
    /// `web.uploads`: the folder of the music directory uploads go into (empty: no uploads).
    public var webUploads = "incoming"
    /// `web.upload_max_mb`: the largest upload.
    public var webUploadMaxMB = 512
    /// `[streams]`: network streams' buffer and bounds.
    public var streamBufferMilliseconds = 2000
    public var streamMaxReconnects = 5
    public var streamConnectTimeoutMilliseconds = 10_000
    public var streamStallSeconds = 10
    public var logLevel = LogLevel.info
    /// `timers.sleep_fade_seconds`: the sleep timer's fade to silence, the last part of its time.
    public var sleepFadeSeconds = 30
    /// `timers.sleep_action`: what ends the music when the sleep timer runs out.
    public var sleepAction = SleepTimer.EndAction.pause
    /// `timers.idle_poweroff_minutes`: power off after this long not playing with nothing done (0: never).
    public var idlePoweroffMinutes = 0.0
    /// `[system] poweroff_request`: the file a `shutdown` hold creates (empty: only logged).
    public var poweroffRequest = "/run/fermata/poweroff"
    /// `[controls] board`: auto, off, a profile name or a path.
    public var board = "auto"
    /// The controls sections' other entries (`[controls]`, `[button-*]`, `[encoder-*]`, `[chord-*]`), checked and
    /// applied over the board profile by the daemon (the Controls module owns their meaning).
    public var controlsEntries: [ConfigEntry] = []
    /// The file the settings were read from, if any (controls errors name it).
    public var file: String?
    /// The `[output-NAME]` sections, in file order (empty: one ALSA output, `audio.output`).
    public var outputs: [OutputConfig] = []
    /// `[cards]` and the `[card-ID]` sections.
    public var cards = CardsConfig()
    /// Key → where its value came from (no entry: the default).
    public var origins: [String: ConfigOrigin] = [:]

    public init() {}

    /// Why `path` cannot be read, in the system's words ("No such file or directory", "Permission denied").
    static func unreadable(_ path: String) -> String {
        var info = stat()
        if stat(path, &info) != 0 { return String(cString: strerror(errno)) }
        if info.st_mode & S_IFMT == S_IFDIR { return "it is a directory" }
        if access(path, R_OK) != 0 { return String(cString: strerror(errno)) }
        return "it could not be read"
    }

    /// Loads `file` over the defaults. A missing file is an error only when `required` (an explicit `--config`).
    public static func load(file: String?, required: Bool) throws(ConfigError) -> DaemonConfig {
        var config = DaemonConfig()
        guard let file else { return config }
        guard let data = FileManager.default.contents(atPath: file) else {
            if required || FileManager.default.fileExists(atPath: file) {
                throw ConfigError(file: file, line: 0, key: nil,
                                  message: "cannot read the configuration file: \(Self.unreadable(file))")
            }
            return config
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigError(file: file, line: 0, key: nil, message: "the file is not valid UTF-8")
        }
        config.file = file
        let entries = try ConfigFile.parse(text, file: file)
        config.outputs = try OutputConfig.parse(entries.filter { $0.section.hasPrefix(OutputConfig.prefix) }, file: file)
        config.cards = try CardsConfig.parse(entries.filter { CardsConfig.isSection($0.section) }, file: file)
        for entry in entries where !entry.section.hasPrefix(OutputConfig.prefix) && !CardsConfig.isSection(entry.section) {
            if entry.isControlsEntry && entry.qualifiedKey != "controls.board" {
                config.controlsEntries.append(entry)
                continue
            }
            guard let key = ConfigKey.all.first(where: { $0.name == entry.qualifiedKey }) else {
                throw ConfigError(file: file, line: entry.line, key: entry.qualifiedKey, message: "unknown key")
            }
            if let problem = key.apply(&config, entry.value) {
                throw ConfigError(file: file, line: entry.line, key: entry.qualifiedKey, message: problem)
            }
            config.origins[key.name] = .file(file, line: entry.line)
        }
        try config.checkAcrossKeys()
        return config
    }

    /// The rules between keys: `volume_min` not above `volume_max` (reported at whichever of the two the file set, the
    /// minimum first).
    func checkAcrossKeys() throws(ConfigError) {
        guard volumeMin > volumeMax else { return }
        let key = origins["audio.volume_min"] != nil || origins["audio.volume_max"] == nil ? "audio.volume_min" : "audio.volume_max"
        var line = 0
        if case let .file(_, at)? = origins[key] { line = at }
        throw ConfigError(file: file ?? "fermata.toml", line: line, key: key,
                          message: "volume_min (\(volumeMin)) must not be above volume_max (\(volumeMax))")
    }

    /// Sets `key` from a command-line flag, validating it like the file would.
    public mutating func override(_ keyName: String, with text: String, flag: String) throws(ConfigError) {
        guard let key = ConfigKey.all.first(where: { $0.name == keyName }) else {
            throw ConfigError(file: flag, line: 0, key: keyName, message: "unknown key")
        }
        if let problem = key.apply(&self, key.parseFlag(text)) {
            throw ConfigError(file: flag, line: 0, key: keyName, message: problem)
        }
        origins[keyName] = .flag(flag)
    }

    /// Every key with its effective value and origin (for `fermata config show`): the fixed keys in documented order,
    /// then each `[output-NAME]` section's keys, then the controls overrides as written (the board profile fills the
    /// rest when the daemon starts).
    public func effectiveValues() -> [(key: String, value: String, origin: String)] {
        var rows = ConfigKey.all.map { ($0.name, $0.current(self), (origins[$0.name] ?? .defaultValue).description) }
        for output in outputs {
            func row(_ key: String, _ value: String) -> (String, String, String) {
                (OutputConfig.prefix + output.name + "." + key, value, output.keyOrigins[key] ?? "default")
            }
            let format = output.format
            rows.append(row("type", ConfigValue.string(output.kind.rawValue).description))
            switch output.kind {
            case .alsa: rows.append(row("device", ConfigValue.string(output.device).description))
            case .fifo: rows.append(row("path", ConfigValue.string(output.path).description))
            case .pipe: rows.append(row("command", ConfigValue.string(output.command).description))
            }
            if output.kind != .alsa {
                rows.append(row("format", ConfigValue.string("\(format.sampleRate):\(format.validBits):\(format.channels)").description))
            }
            rows.append(row("enabled", "\(output.enabled)"))
        }
        for entry in controlsEntries {
            rows.append((entry.qualifiedKey, entry.value.description, "\(file ?? "?"):\(entry.line)"))
        }
        if !cards.bindings.isEmpty {
            rows.append(("cards.again", ConfigValue.string(cards.again.rawValue).description, file ?? "default"))
        }
        for card in cards.bindings {
            rows.append(("card-\(card.id).play", ConfigValue.string(card.target.description).description, card.origin))
            if let cap = card.volumeMax { rows.append(("card-\(card.id).volume_max", "\(cap)", card.origin)) }
        }
        return rows
    }

    /// The documented default configuration file.
    public static func documentedDefaults() -> String {
        var out = "# Fermata configuration. Every key is optional; the value shown is the default.\n"
        var section = ""
        let defaults = DaemonConfig()
        for key in ConfigKey.all {
            let parts = key.name.split(separator: ".", maxSplits: 1)
            if String(parts[0]) != section {
                section = String(parts[0])
                out += "\n[\(section)]\n"
            }
            out += "# \(key.help)\n#\(parts[1]) = \(key.current(defaults))\n"
        }
        return out
    }
}

/// How much the daemon logs (`log.level`); the names swift-log's levels have.
public enum LogLevel: String, Sendable, Hashable, CaseIterable {
    case trace, debug, info, notice, warning, error
}
