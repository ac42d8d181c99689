import FermataConfig
import FermataCore
import Foundation
import Testing
import TestSupport

/// The timers' keys and `audio.volume_min`: their defaults, their ranges, and the rule between `volume_min` and
/// `volume_max`, reported with the file and the line like every other key.
@Suite struct TimersConfigTests {
    func load(_ text: String) throws -> DaemonConfig {
        let dir = try TemporaryDirectory()
        let path = dir.file("fermata.toml")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return try DaemonConfig.load(file: path, required: true)
    }

    func error(_ text: String) -> ConfigError? {
        do { _ = try load(text); return nil } catch let error as ConfigError { return error } catch { return nil }
    }

    @Test func defaultsAndValues() throws {
        let defaults = DaemonConfig()
        #expect(defaults.volumeMin == 0 && defaults.sleepFadeSeconds == 30 && defaults.sleepAction == .pause)
        #expect(defaults.idlePoweroffMinutes == 0, "idle power-off is off unless asked for")
        let config = try load("""
            [audio]
            volume_min = 15
            volume_max = 80

            [timers]
            sleep_fade_seconds = 60
            sleep_action = "stop"
            idle_poweroff_minutes = 0.5
            """)
        #expect(config.volumeMin == 15 && config.volumeMax == 80)
        #expect(config.sleepFadeSeconds == 60 && config.sleepAction == .stop && config.idlePoweroffMinutes == 0.5)
    }

    @Test func rangesAreChecked() {
        #expect(error("[audio]\nvolume_min = 101\n")?.message == "must be between 0 and 100")
        #expect(error("[audio]\nvolume_min = -1\n")?.message == "must be between 0 and 100")
        #expect(error("[timers]\nsleep_fade_seconds = 601\n")?.message == "must be between 0 and 600")
        #expect(error("[timers]\nsleep_fade_seconds = 1.5\n")?.message == "must be a whole number")
        #expect(error("[timers]\nsleep_action = \"nap\"\n")?.message == "must be one of pause, stop")
        #expect(error("[timers]\nidle_poweroff_minutes = -1\n")?.message.hasPrefix("must be between") == true)
        #expect(error("[timers]\nidle_poweroff_minutes = inf\n")?.message.hasPrefix("must be between") == true)
        #expect(error("[timers]\nidle_poweroff_minutes = nan\n")?.message.hasPrefix("must be between") == true)
        #expect(error("[timers]\nidle_poweroff_minutes = 99999999999999999999\n")?.message.hasSuffix("is too large") == true)
    }

    /// A minimum above the maximum is refused with the file, the line that set it and the key.
    @Test func theMinimumMayNotBeAboveTheMaximum() throws {
        let both = error("[audio]\nvolume_max = 40\nvolume_min = 50\n")
        #expect(both?.line == 3)
        #expect(both?.key == "audio.volume_min")
        #expect(both?.description.hasSuffix("fermata.toml:3: audio.volume_min: volume_min (50) must not be above volume_max (40)") == true)
        #expect(error("[audio]\nvolume_max = 0\n") == nil, "the default minimum, 0, is none")
        let config = try load("[audio]\nvolume_min = 40\nvolume_max = 40\n")
        #expect(config.volumeMin == 40, "equal is allowed")
    }
}
