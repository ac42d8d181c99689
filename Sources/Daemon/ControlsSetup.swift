import Controls
import FermataConfig
import Foundation

/// Turns `[controls] board` and the user's controls sections into the board profile the daemon runs its buttons and
/// encoder with. Resolved while the configuration is read, so a bad profile or override stops `fermatad` with the
/// file, line and key like any other configuration error. Pure apart from reading profile files; any thread.
public struct ControlsSetup: Sendable {
    /// The profile with the user's overrides applied; nil when the controls are off or no profile matches.
    public var profile: BoardProfile?
    /// What was chosen and why, for the start-up log.
    public var note: String

    /// Resolves `config.board`: `off`, `auto` (the profile whose `model` prefixes match the device tree's model, in
    /// `directories`), a profile name looked up in `directories`, or a path.
    public static func resolve(_ config: DaemonConfig, directories: [String] = BoardProfile.directories,
                               model: String? = nil) throws(ConfigError) -> ControlsSetup {
        let origin = config.file ?? "fermata.toml"
        // `[input-NAME] profile = "…"` brings an input profile's match and controls (boards/inputs).
        let overrides = try InputProfile.expand(config.controlsEntries.map { ProfileEntry($0, file: origin) },
                                                directories: directories.map { $0 + "/inputs" })
        // Input devices (`[input-NAME]`, evdev) need no board: without a profile they run on the configuration alone.
        let inputsOnly = { (why: String) throws(ConfigError) -> ControlsSetup? in
            guard overrides.contains(where: { $0.section.hasPrefix("input-") || $0.section.hasPrefix("input.") })
            else { return nil }
            return ControlsSetup(profile: try BoardProfile(entries: overrides),
                                 note: "controls: no board profile (\(why)); input devices from \(origin)")
        }
        let file: String
        switch config.board {
        case "off", "none":
            if let setup = try inputsOnly("[controls] board = \"\(config.board)\"") { return setup }
            return ControlsSetup(profile: nil, note: "controls: off ([controls] board = \"\(config.board)\")")
        case "auto":
            guard let found = BoardProfile.detect(inFirstOf: directories, model: model) else {
                if let setup = try inputsOnly("none matches this machine") { return setup }
                let machine = model ?? (try? String(contentsOfFile: BoardProfile.modelFile, encoding: .utf8))
                let named = machine.map { "\"\(BoardProfile.machineName($0))\"" } ?? "(no \(BoardProfile.modelFile))"
                return ControlsSetup(profile: nil, note: "controls: off: no board profile in "
                    + directories.joined(separator: ", ") + " matches this machine \(named); set [controls] board")
            }
            file = found
        default:
            guard let named = BoardProfile.file(for: config.board, in: directories) else {
                throw ConfigError(file: origin, line: line(of: "controls.board", in: config), key: "controls.board",
                                  message: "no board profile \"\(config.board)\" (looked in "
                                      + directories.joined(separator: ", ") + ")")
            }
            file = named
        }
        let profile = try BoardProfile.load(file: file, overrides: overrides)
        let state = profile.controls.enabled ? "" : " (disabled by [controls] enabled = false)"
        return ControlsSetup(profile: profile, note: "controls: board profile \(file)\(state)")
    }

    /// The line of the file `key` was set on, or 0 (a default, a flag).
    private static func line(of key: String, in config: DaemonConfig) -> Int {
        if case let .file(_, line)? = config.origins[key] { return line }
        return 0
    }
}
