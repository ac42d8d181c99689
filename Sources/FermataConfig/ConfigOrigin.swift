/// Where a setting's value came from, for `fermata config show` and messages: its default, a line of a file, a
/// command-line flag, or the per-user places a normal user's daemon gets. A plain value.
public enum ConfigOrigin: Sendable, Hashable, CustomStringConvertible {
    case defaultValue
    case file(String, line: Int)
    case flag(String)
    case perUserDefault

    /// "default", "FILE:LINE", "--flag" or "per-user default" (`config show`'s third column).
    public var description: String {
        switch self {
        case .defaultValue: "default"
        case let .file(path, line): "\(path):\(line)"
        case let .flag(flag): flag
        case .perUserDefault: "per-user default"
        }
    }
}
