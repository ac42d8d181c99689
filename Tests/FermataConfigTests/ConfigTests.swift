import FermataConfig
import Foundation
import Testing
import TestSupport

@Suite struct ConfigTests {
    func load(_ text: String) throws -> DaemonConfig {
        let dir = try TemporaryDirectory()
        let path = dir.file("fermata.toml")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return try DaemonConfig.load(file: path, required: true)
    }

    func error(_ text: String) -> ConfigError? {
        do { _ = try load(text); return nil } catch let error as ConfigError { return error } catch { return nil }
    }

    /// An explicit `--config` that cannot be read says why, without a line number (it said ":0: cannot read the
    /// configuration file").
    @Test func anUnreadableFileSaysWhy() throws {
        let missing = #expect(throws: ConfigError.self) {
            try DaemonConfig.load(file: "/nonexistent/fermata.toml", required: true)
        }
        #expect(missing?.description
            == "/nonexistent/fermata.toml: cannot read the configuration file: No such file or directory")
        let dir = try TemporaryDirectory()
        let directory = #expect(throws: ConfigError.self) { try DaemonConfig.load(file: dir.path, required: true) }
        #expect(directory?.description == "\(dir.path): cannot read the configuration file: it is a directory")
    }

    @Test func noFileMeansDefaults() throws {
        let config = try DaemonConfig.load(file: "/nonexistent/fermata.toml", required: false)
        #expect(config == DaemonConfig())
        #expect(config.listen == ListenAddress(host: "127.0.0.1", port: 6600))
        #expect(config.checkpointInterval == 2)
    }

    @Test func valuesAndOriginsAreRead() throws {
        let config = try load("""
        # a comment
        [paths]
        music = "/mnt/music"   # trailing comment
        [audio]
        output = 'plughw:CARD=sndrpihifiberry,DEV=0'
        period_ms = 10
        [playback]
        repeat = "queue"
        checkpoint_interval = 1.5
        [mpd]
        default_permissions = ["read", "control"]
        """)
        #expect(config.musicDirectory == "/mnt/music")
        #expect(config.output == "plughw:CARD=sndrpihifiberry,DEV=0")
        #expect(config.periodMilliseconds == 10)
        #expect(config.repeatMode == .queue)
        #expect(config.checkpointInterval == 1.5)
        #expect(config.defaultPermissions == [.read, .control])
        #expect(config.origins["audio.period_ms"]?.description.hasSuffix("fermata.toml:6") == true)
        #expect(config.effectiveValues().first { $0.key == "paths.state" }?.origin == "default")
    }

    /// `fermata config show` lists the output sections and the controls overrides too, each with FILE:LINE.
    @Test func effectiveValuesIncludeOutputsAndControls() throws {
        let config = try load("""
        [audio]
        period_ms = 10
        [output-snap]
        type = "fifo"
        path = "/tmp/snapfifo"
        format = "44100:24:2"

        [output-speakers]
        type = "alsa"
        device = "plughw:CARD=Headphones"
        enabled = false
        [button-next]
        line = "GPIO6"
        """)
        let rows = Dictionary(config.effectiveValues().map { ($0.key, ($0.value, $0.origin)) }) { first, _ in first }
        #expect(rows["output-snap.type"]?.0 == "\"fifo\"")
        #expect(rows["output-snap.path"]?.0 == "\"/tmp/snapfifo\"")
        #expect(rows["output-snap.format"]?.0 == "\"44100:24:2\"")
        #expect(rows["output-snap.enabled"]?.0 == "true")
        #expect(rows["output-snap.type"]?.1.hasSuffix("fermata.toml:4") == true, "\(rows["output-snap.type"] ?? ("", ""))")
        #expect(rows["output-speakers.device"]?.0 == "\"plughw:CARD=Headphones\"")
        #expect(rows["output-speakers.enabled"]?.0 == "false")
        #expect(rows["output-speakers.format"] == nil, "an alsa output has no fixed format")
        #expect(rows["output-snap.path"]?.1.hasSuffix("fermata.toml:5") == true)
        #expect(rows["output-speakers.enabled"]?.1.hasSuffix("fermata.toml:11") == true)
        #expect(rows["output-snap.enabled"]?.1 == "default", "not written: the default")
        #expect(rows["button-next.line"]?.0 == "\"GPIO6\"")
        #expect(rows["button-next.line"]?.1.hasSuffix("fermata.toml:13") == true)
        #expect(rows["audio.period_ms"]?.1.hasSuffix("fermata.toml:2") == true)
    }

    @Test func errorsNameFileLineAndKey() {
        let unknown = error("[audio]\nperiod_ms = 5\nvolumee = 3\n")
        #expect(unknown?.line == 3)
        #expect(unknown?.key == "audio.volumee")
        #expect(unknown?.description.hasSuffix("fermata.toml:3: audio.volumee: unknown key") == true)
        #expect(error("[audio]\nperiod_ms = 500\n")?.message == "must be between 1 and 200")
        #expect(error("[playback]\nresume = \"maybe\"\n")?.message == "must be one of playing, paused, off")
        #expect(error("[audio]\noutput = default\n")?.message == "cannot read value 'default' (strings need quotes)")
        #expect(error("[audio]\nformat = \"44100:s12:2\"\n")?.key == "audio.format")
        #expect(error("[mpd]\nlisten = \"localhost\"\n")?.message.hasPrefix("must be HOST:PORT") == true)
        // Addresses the listener could not use are configuration errors, not failures at bind time.
        #expect(error("[mpd]\nlisten = \":16622\"\n")?.message.hasPrefix("the host is missing") == true)
        #expect(error("[mpd]\nlisten = \"box:\"\n")?.message.hasPrefix("the port must be") == true)
        #expect(error("[mpd]\nlisten = \"box:0\"\n")?.message.hasPrefix("the port must be") == true)
        #expect(error("[mpd]\nlisten = \"::1:6600\"\n")?.message.hasPrefix("an IPv6 host goes in brackets") == true)
        #expect(error("[mpd]\nlisten = \"a b:6600\"\n")?.message.hasPrefix("the host must be") == true)
        for good in ["127.0.0.1:6600", "[::1]:6600", "0.0.0.0:1", "localhost:65535", ""] {
            #expect(error("[mpd]\nlisten = \"\(good)\"\n") == nil, "\(good)")
        }
        // An empty state directory wrote the database to `/library.sqlite`.
        #expect(error("[paths]\nstate = \"\"\n")?.message == "must not be empty (a directory)")
        #expect(error("[paths]\nmusic = \"\"\n")?.message == "must not be empty (a directory)")
        // A table defined twice was read as one; TOML's special floats and too-large integers said "strings need quotes".
        #expect(error("[audio]\nvolume = 5\n[mpd]\n[audio]\nperiods = 3\n")?.message == "[audio] is defined twice")
        #expect(error("[audio]\nvolume = 5\n[mpd]\n[audio]\nperiods = 3\n")?.line == 4)
        #expect(error("[mpd]\nmax_connections = 99999999999999999999\n")?.message
            == "the number 99999999999999999999 is too large")
        #expect(error("[playback]\ncheckpoint_interval = nan\n")?.message.hasPrefix("must be between") == true)
        #expect(error("[playback]\ncheckpoint_interval = -inf\n")?.message.hasPrefix("must be between") == true)
        #expect(error("[audio\n")?.line == 1)
        #expect(error("[audio]\nvolume = 5\nvolume = 6\n")?.message == "set twice")
        #expect(error("[paths]\nmusic = \"/x\n")?.message == "unterminated string")
    }

    @Test func flagsOverrideTheFileAndAreValidated() throws {
        var config = try load("[playback]\nresume = \"paused\"\n")
        try config.override("playback.resume", with: "off", flag: "--resume")
        #expect(config.resume == .off)
        #expect(config.origins["playback.resume"] == .flag("--resume"))
        #expect(throws: ConfigError.self) { try config.override("playback.checkpoint_interval", with: "soon", flag: "--checkpoint-interval") }
        #expect(throws: ConfigError.self) { try config.override("paths.state", with: "", flag: "--state") }
    }

    @Test func documentedDefaultsParseBackToTheDefaults() throws {
        let text = DaemonConfig.documentedDefaults()
        let uncommented = text.split(separator: "\n").map { line -> String in
            line.hasPrefix("#") && line.contains(" = ") && !line.hasPrefix("# ") ? String(line.dropFirst()) : String(line)
        }.joined(separator: "\n")
        var config = try load(uncommented)
        config.origins = [:]
        config.file = nil
        #expect(config == DaemonConfig())
        #expect(text.contains("#checkpoint_interval = 2.0"))
        #expect(text.contains("[controls]\n") && text.contains("\n#board = \"auto\"\n"), "install.sh rewrites this line")
    }
}
