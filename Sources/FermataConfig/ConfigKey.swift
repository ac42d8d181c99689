import AudioCore
import FermataCore

/// One documented configuration key: its name, help text, how to validate and apply a value, and how to print the
/// current one. The table `all` is the single source of truth for the file format, the flags and `config show`.
struct ConfigKey: Sendable {
    let name: String
    let help: String
    /// Returns nil when applied, else what is wrong with the value.
    let apply: @Sendable (inout DaemonConfig, ConfigValue) -> String?
    let current: @Sendable (DaemonConfig) -> String
    let parseFlag: @Sendable (String) -> ConfigValue

    static var all: [ConfigKey] {
        [
            // Empty would mean the current directory for the music and `/` for the database (`"" + "/library.sqlite"`).
            text("paths.music", \.musicDirectory, "Music directory (read-only for Fermata).") {
                $0.isEmpty ? "must not be empty (a directory)" : nil
            },
            text("paths.state", \.stateDirectory, "State directory: the database lives here (must be writable).") {
                $0.isEmpty ? "must not be empty (a directory)" : nil
            },
            text("audio.output", \.output, "ALSA PCM name (plughw:CARD=...,DEV=0), `null` (paced, discarded) or file:PATH.") {
                $0.isEmpty ? "must not be empty" : nil
            },
            parsed("audio.format", \.format, "fixed (one device format, convert), follow (reopen per track) or RATE:s16|s24|s32|f32:CH.",
                   problem: DeviceFormatSetting.problem, show: \.description, DeviceFormatSetting.init(text:)),
            integer("audio.settle_ms", \.settleMilliseconds, 0...5000, "With format = follow: silence after a reopen."),
            integer("audio.period_ms", \.periodMilliseconds, 1...200, "Device period in milliseconds."),
            integer("audio.periods", \.periods, 2...16, "Periods in the device buffer."),
            integer("audio.decode_ahead_ms", \.decodeAheadMilliseconds, 100...30000, "How far decoding runs ahead."),
            integer("audio.loop_crossfade_ms", \.loopCrossfadeMilliseconds, 0...200, "Crossfade at the A-B loop seam."),
            integer("audio.realtime_priority", \.realtimePriority, 0...99, "SCHED_FIFO priority of the output thread (0: off)."),
            integer("audio.volume", \.volume, 0...100, "Volume at first start (later the saved volume is used)."),
            integer("audio.volume_max", \.volumeMax, 0...100, "Highest volume any path may set: buttons, encoder, MPD clients, the CLI, cards."),
            integer("audio.volume_min", \.volumeMin, 0...100, "Lowest volume any path may set (0: none): buttons, encoder, MPD clients, the CLI, cards, alarms. Not above volume_max; a card's lower cap wins. The sleep timer still fades to silence (its fade is apart from the volume)."),
            integer("audio.volume_start", \.volumeStart, -1...100, "Volume at every start (-1: the saved volume)."),
            choice("audio.replay_gain", \.replayGain, "ReplayGain mode at first start."),
            choice("playback.resume", \.resume, "After a restart: play, pause or stay stopped."),
            choice("playback.repeat", \.repeatMode, "Repeat mode at first start (queue: the endless set list)."),
            number("playback.checkpoint_interval", \.checkpointInterval, 0.2...3600, "Seconds between position saves while playing."),
            boolean("library.scan_on_start", \.scanOnStart, "Scan the music directory at every start."),
            boolean("practice.remember", \.practiceRemember, "Returning to a track restores its last A-B loop and tempo."),
            text("record.device", \.recordDevice, "Recording yourself: the ALSA capture PCM (plughw:CARD=...,DEV=0: a USB audio interface or microphone; empty: recording off). It must capture at the output's rate; `fermata doctor` checks it and `fermata audio latency` measures the round trip once.") {
                $0.contains(where: { $0.isNewline }) ? "must be one line (an ALSA PCM name)" : nil
            },
            integer("record.budget_mb", \.recordBudgetMB, 1...1_000_000, "Space the takes may use in the state folder, in MiB; the oldest takes are deleted first to stay within it."),
            parsed("mpd.listen", \.listen, "TCP HOST:PORT for MPD clients (empty: no TCP).",
                   problem: { $0.isEmpty ? nil : ListenAddress.problem($0) }, show: { $0?.description ?? "" }) {
                // Empty: no TCP (`.some(nil)`); an unusable address: refused (`nil`, not wrapped).
                $0.isEmpty ? .some(nil) : ListenAddress($0).map { .some($0) }
            },
            text("mpd.socket", \.socketPath, "Unix socket for MPD clients and the fermata CLI (empty: none)."),
            text("mpd.password", \.password, "Password clients send with `password` (empty: none)."),
            permissions("mpd.default_permissions", \.defaultPermissions, "Permissions without a password."),
            integer("mpd.max_connections", \.maxConnections, 1...1024, "Simultaneous MPD clients."),
            integer("mpd.connection_timeout", \.connectionTimeout, 1...86400, "Seconds before an idle (non-`idle`) client is closed."),
            parsed("web.listen", \.webListen, "The web remote's HTTP HOST:PORT (empty: off). On the loopback address no login is needed; from any other address every request needs a login with the password `fermata web password` sets.",
                   problem: { $0.isEmpty ? nil : ListenAddress.problem($0) }, show: { $0?.description ?? "" }) {
                $0.isEmpty ? .some(nil) : ListenAddress($0).map { .some($0) }
            },
            integer("web.max_connections", \.webMaxConnections, 1...1024, "Simultaneous web remote connections."),
            text("web.uploads", \.webUploads, "The folder of the music directory uploads from the web remote go into (empty: no uploads). Uploads work only where fermatad may write in the music directory.") {
                $0.contains("..") || $0.hasPrefix("/") ? "must be a folder inside the music directory (no /, no ..)" : nil
            },
            integer("web.upload_max_mb", \.webUploadMaxMB, 1...4096, "The largest file the web remote takes, in MiB."),
            integer("streams.buffer_ms", \.streamBufferMilliseconds, 500...60_000, "Network stream audio buffered ahead (absorbs the network's jitter); a stream starts playing once this much is in."),
            integer("streams.max_reconnects", \.streamMaxReconnects, 0...100, "Reconnects after a playing stream's connection fails (after 1, 2, 4 … 16 s); then it is skipped with the error."),
            integer("streams.connect_timeout_ms", \.streamConnectTimeoutMilliseconds, 1000...120_000, "Time to resolve, connect to and (for https) shake hands with a stream's server."),
            integer("streams.stall_seconds", \.streamStallSeconds, 2...300, "A stream connection that delivers nothing for this long is given up and reconnected."),
            text("controls.board", \.board, "Board profile for the buttons and encoder: auto (from the device tree's model), off, a name from /etc/fermata/boards or /usr/share/fermata/boards (rpi-4), or a path. The profile's [button-*]/[encoder-*]/[chord-*] sections may be overridden here.") {
                $0.isEmpty ? "must not be empty (auto, off, a profile name or a path)" : nil
            },
            integer("timers.sleep_fade_seconds", \.sleepFadeSeconds, 0...600, "The sleep timer's fade to silence: the last part of its time (0: no fade, the music ends at once)."),
            choice("timers.sleep_action", \.sleepAction, "What ends the music when the sleep timer runs out (the volume is as it was, so play is heard again)."),
            number("timers.idle_poweroff_minutes", \.idlePoweroffMinutes, 0...1440, "Power the box off after this many minutes of not playing (stopped or paused) with nothing done: no command, button or card (0: never; fractions allowed). Through system.poweroff_request."),
            text("system.poweroff_request", \.poweroffRequest, "File the `shutdown` control action and the idle power-off create; deploy/'s fermata-poweroff.path unit powers the board off when it appears (empty: only logged)."),
            choice("log.level", \.logLevel, "Log level (stderr)."),
        ]
    }

    static func text(
        _ name: String, _ path: WritableKeyPath<DaemonConfig, String> & Sendable, _ help: String,
        validate: @escaping @Sendable (String) -> String? = { _ in nil }
    ) -> ConfigKey {
        ConfigKey(name: name, help: help, apply: { config, value in
            guard case let .string(s) = value else { return "must be a quoted string" }
            if let problem = validate(s) { return problem }
            config[keyPath: path] = s
            return nil
        }, current: { "\"\($0[keyPath: path])\"" }, parseFlag: { .string($0) })
    }

    /// A key whose value is one of an enum's cases, by raw value.
    static func choice<Value: RawRepresentable & CaseIterable & Sendable>(
        _ name: String, _ path: WritableKeyPath<DaemonConfig, Value> & Sendable, _ help: String
    ) -> ConfigKey where Value.RawValue == String {
        let options = Value.allCases.map(\.rawValue).joined(separator: ", ")
        return parsed(name, path, help + " One of: " + options + ".", problem: "must be one of " + options,
                      show: \.rawValue) { Value(rawValue: $0) }
    }

    /// A key whose quoted text `parse` turns into a typed value (nil: refused with `problem`).
    static func parsed<Value: Sendable>(
        _ name: String, _ path: WritableKeyPath<DaemonConfig, Value> & Sendable, _ help: String, problem: String,
        show: @escaping @Sendable (Value) -> String, _ parse: @escaping @Sendable (String) -> Value?
    ) -> ConfigKey {
        parsed(name, path, help, problem: { _ in problem }, show: show, parse)
    }

    /// A key whose quoted text `parse` turns into a typed value; `problem` says what is wrong with a text `parse`
    /// refuses.
    static func parsed<Value: Sendable>(
        _ name: String, _ path: WritableKeyPath<DaemonConfig, Value> & Sendable, _ help: String,
        problem: @escaping @Sendable (String) -> String?, show: @escaping @Sendable (Value) -> String,
        _ parse: @escaping @Sendable (String) -> Value?
    ) -> ConfigKey {
        ConfigKey(name: name, help: help, apply: { config, value in
            guard case let .string(s) = value else { return "must be a quoted string" }
            guard let parsed = parse(s) else { return problem(s) ?? "is not a usable value" }
            config[keyPath: path] = parsed
            return nil
        }, current: { "\"" + show($0[keyPath: path]) + "\"" }, parseFlag: { .string($0) })
    }

    /// MPD's permission names as an array (`["read", "add"]`), typed as `Permission`; an empty array is no
    /// permission at all.
    static func permissions(
        _ name: String, _ path: WritableKeyPath<DaemonConfig, Permission> & Sendable, _ help: String
    ) -> ConfigKey {
        let options = Permission.names.map(\.0)
        return ConfigKey(name: name, help: help + " Any of: " + options.joined(separator: ", ") + ".",
                         apply: { config, value in
            guard case let .strings(items) = value else { return "must be an array of strings like [\"read\"]" }
            if let bad = items.first(where: { !options.contains($0) }) { return "unknown value \"\(bad)\"" }
            guard let permission = Permission(list: items.joined(separator: ",")) else { return "unknown value" }
            config[keyPath: path] = permission
            return nil
        }, current: { config in "[" + Permission.names.filter { config[keyPath: path].contains($0.1) }
                .map { "\"\($0.0)\"" }.joined(separator: ", ") + "]" },
        parseFlag: { .strings($0.split(separator: ",").map(String.init)) })
    }

    static func integer(
        _ name: String, _ path: WritableKeyPath<DaemonConfig, Int> & Sendable, _ range: ClosedRange<Int>, _ help: String
    ) -> ConfigKey {
        ConfigKey(name: name, help: help + " (\(range.lowerBound)–\(range.upperBound))", apply: { config, value in
            guard case let .integer(i) = value else { return "must be a whole number" }
            guard range.contains(i) else { return "must be between \(range.lowerBound) and \(range.upperBound)" }
            config[keyPath: path] = i
            return nil
        }, current: { "\($0[keyPath: path])" }, parseFlag: { Int($0).map(ConfigValue.integer) ?? .string($0) })
    }

    static func number(
        _ name: String, _ path: WritableKeyPath<DaemonConfig, Double> & Sendable, _ range: ClosedRange<Double>,
        _ help: String
    ) -> ConfigKey {
        ConfigKey(name: name, help: help + " (\(range.lowerBound)–\(range.upperBound))", apply: { config, value in
            let number: Double
            switch value {
            case let .float(f): number = f
            case let .integer(i): number = Double(i)
            default: return "must be a number"
            }
            guard range.contains(number) else { return "must be between \(range.lowerBound) and \(range.upperBound)" }
            config[keyPath: path] = number
            return nil
        }, current: { "\($0[keyPath: path])" }, parseFlag: { Double($0).map(ConfigValue.float) ?? .string($0) })
    }

    static func boolean(_ name: String, _ path: WritableKeyPath<DaemonConfig, Bool> & Sendable, _ help: String) -> ConfigKey {
        ConfigKey(name: name, help: help, apply: { config, value in
            guard case let .boolean(b) = value else { return "must be true or false" }
            config[keyPath: path] = b
            return nil
        }, current: { "\($0[keyPath: path])" }, parseFlag: { Bool($0).map(ConfigValue.boolean) ?? .string($0) })
    }
}
