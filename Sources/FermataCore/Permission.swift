/// What a client may do, as MPD's permission classes: `read`, `add`, `control`, `admin`.
///
/// A plain value. Commands declare the permissions they need; commands needing none (`password`, `ping`, `close`,
/// `commands`, `tagtypes`, …) are always allowed.
public struct Permission: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let read = Permission(rawValue: 1)
    public static let add = Permission(rawValue: 2)
    public static let control = Permission(rawValue: 4)
    public static let admin = Permission(rawValue: 8)
    public static let none: Permission = []
    public static let all: Permission = [.read, .add, .control, .admin]

    /// The names, in MPD's order.
    public static let names: [(String, Permission)] = [
        ("read", .read), ("add", .add), ("control", .control), ("admin", .admin),
    ]

    /// Parses MPD's configuration syntax, e.g. `read,add,control,admin`; nil on an unknown name.
    public init?(list: String) {
        var result = Permission()
        for part in list.split(separator: ",") {
            let name = String(part.filter { $0 != " " && $0 != "\t" })
            guard let match = Self.names.first(where: { $0.0 == name }) else { return nil }
            result.insert(match.1)
        }
        self = result
    }

    public var description: String { Self.names.filter { contains($0.1) }.map(\.0).joined(separator: ",") }
}
