import Foundation
import FermataConfig

/// A board's profile: what it is, its default ALSA device, the header lines to keep free, and the default controls
/// (pin map and keymap), read from `boards/*.toml` and overlaid with the user's configuration (the same sections;
/// a later entry for the same section and key wins). The format is described in `boards/README.md`.
///
/// A value; any thread. Building one does no I/O except `load` (reads the file) and `detect` (reads the model).
public struct BoardProfile: Sendable, Equatable {
    /// Short identifier, e.g. `rpi4`.
    public var id = ""
    /// Human name, e.g. `Raspberry Pi 4 Model B`.
    public var name = ""
    /// Prefixes of the device tree's model (`modelFile`) that select this profile automatically.
    public var models: [String] = []
    /// The ALSA PCM to use when the configuration names none.
    public var alsaDevice = "default"
    /// Lines a pin map should leave free (I2S, I2C, DAC mute, IR...) as names, CHIP:OFFSET or offsets on
    /// `[controls] chip`; using one is a warning, not an error.
    public var reservedLines: [String] = []
    public var controls = ControlsConfig()
    /// Non-fatal remarks, e.g. a reserved line in use; the daemon logs them.
    public var warnings: [String] = []

    public init() {}

    /// Builds a profile from parsed entries: the profile file's first, then the user's overrides.
    public init(entries: [ProfileEntry]) throws(ConfigError) {
        var reader = ProfileReader(entries: entries)
        try reader.read(into: &self)
    }

    /// Reads a profile file and applies `overrides` (entries from the user's configuration) on top.
    public static func load(file: String, overrides: [ProfileEntry] = []) throws(ConfigError) -> BoardProfile {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ConfigError(file: file, line: 0, key: nil, message: "cannot read the board profile")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigError(file: file, line: 0, key: nil, message: "the file is not valid UTF-8")
        }
        var profile = try BoardProfile(entries: ProfileFile.parse(text, file: file) + overrides)
        if profile.id.isEmpty {
            profile.id = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        }
        return profile
    }

    /// Whether a configuration section belongs to the controls: `board`, `controls`, `button-*`, `encoder-*`,
    /// `chord-*` (the daemon passes these through to `BoardProfile`).
    public static func isControlsSection(_ section: String) -> Bool { ConfigEntry.isControlsSection(section) }

    /// Where profiles are installed, searched in this order by `file(for:)`.
    public static let directories = ["/etc/fermata/boards", "/usr/share/fermata/boards"]

    /// The profile file for `board` (fermata.toml's `[controls] board`): a path, or a name looked up in
    /// `directories` ("rpi-4" → rpi-4.toml). Nil when there is no such file.
    public static func file(for board: String, in directories: [String] = directories) -> String? {
        if board.contains("/") { return FileManager.default.fileExists(atPath: board) ? board : nil }
        let name = board.hasSuffix(".toml") ? board : board + ".toml"
        return directories.map { $0 + "/" + name }.first { FileManager.default.fileExists(atPath: $0) }
    }

    /// Where the kernel names the machine (a device-tree board; absent on a PC). The device tree in sysfs, not its
    /// `/proc/device-tree` link: the shipped unit's `ProcSubset=pid` hides that one, and `board = "auto"` found no
    /// profile under systemd (the board lab's hardened scenario).
    public static let modelFile = "/sys/firmware/devicetree/base/model"

    /// The machine's name as the device tree spells it, without the NULs, newlines and blanks around it. Plain
    /// Swift: the arm64 build's `trimmingCharacters(in: CharacterSet(charactersIn: "\0\n "))` trimmed nothing, and
    /// fermatad crashed (SIGSEGV) formatting a model no profile matched (the board lab, under qemu-aarch64).
    public static func machineName(_ model: String) -> String {
        let blank: Set<Character> = ["\0", "\n", "\r", " ", "\t"]
        return String(model.drop { blank.contains($0) }.reversed().drop { blank.contains($0) }.reversed())
    }

    /// The first of `directories` (in order: `directories` by default, the owner's `/etc/fermata/boards` before the
    /// package's) holding a profile for this machine (`detect(in:model:)`): the one lookup the daemon, `fermatad
    /// --detect-board` and `fermata gpio-monitor` share.
    public static func detect(inFirstOf directories: [String] = directories, model: String? = nil) -> String? {
        directories.lazy.compactMap { detect(in: $0, model: model) }.first
    }

    /// The profile in `directory` whose `model` prefixes match this machine's `modelFile` (or `model`), or nil; the
    /// longest matching prefix wins. Profiles that fail to parse are skipped. The one board detector: the daemon's
    /// `board = "auto"`, `fermata gpio-monitor` and `deploy/install.sh` (through `fermatad --detect-board`) all use it.
    public static func detect(in directory: String, model: String? = nil) -> String? {
        let text = model ?? (try? String(contentsOfFile: modelFile, encoding: .utf8))
        guard let machine = text.map(machineName), !machine.isEmpty,
              let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
        var best: (file: String, length: Int)?
        for name in names.sorted() where name.hasSuffix(".toml") {
            let file = directory + "/" + name
            guard let profile = try? load(file: file) else { continue }
            for prefix in profile.models where machine.hasPrefix(prefix) && prefix.count > (best?.length ?? 0) {
                best = (file, prefix.count)
            }
        }
        return best?.file
    }
}
