import FermataConfig

/// One `key = value` of a board profile or of the user's configuration, with the file and line it came from.
public struct ProfileEntry: Sendable, Equatable {
    public var section: String
    public var key: String
    public var value: ConfigValue
    public var file: String
    public var line: Int

    public init(section: String, key: String, value: ConfigValue, file: String, line: Int) {
        self.section = section
        self.key = key
        self.value = value
        self.file = file
        self.line = line
    }

    /// An entry the daemon's configuration parser read from `file`.
    public init(_ entry: ConfigEntry, file: String) {
        self.init(section: entry.section, key: entry.key, value: entry.value, file: file, line: entry.line)
    }
}

/// Reads board profiles with the configuration file's own parser (`FermataConfig.ConfigFile`), so a profile and
/// fermata.toml are the same format: `[section]`, `key = value`, quoted strings, numbers, booleans, one-line string
/// arrays, `#` comments. Pure; any thread.
public enum ProfileFile {
    public static func parse(_ text: String, file: String) throws(ConfigError) -> [ProfileEntry] {
        try ConfigFile.parse(text, file: file).map { ProfileEntry($0, file: file) }
    }
}
