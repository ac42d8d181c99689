/// A part of the daemon whose changes `idle` reports, with MPD's names.
///
/// A plain value; `IdleSet` is the bit set of them that sessions accumulate.
public enum IdleSubsystem: String, Sendable, Hashable, CaseIterable {
    case database
    case update
    case storedPlaylist = "stored_playlist"
    /// The queue.
    case playlist
    case player
    case mixer
    case output
    case options
    case partition
    case sticker
    case subscription
    case message
    case neighbor
    case mount

    /// The set holding just this subsystem.
    public var set: IdleSet { IdleSet(rawValue: 1 << UInt32(Self.allCases.firstIndex(of: self)!)) }
}

/// A set of idle subsystems as a bit mask (bounded memory however many changes pile up).
public struct IdleSet: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public init(_ subsystems: some Sequence<IdleSubsystem>) {
        self = subsystems.reduce(into: IdleSet()) { $0.formUnion($1.set) }
    }

    public static let database = IdleSubsystem.database.set
    public static let update = IdleSubsystem.update.set
    public static let storedPlaylist = IdleSubsystem.storedPlaylist.set
    public static let playlist = IdleSubsystem.playlist.set
    public static let player = IdleSubsystem.player.set
    public static let mixer = IdleSubsystem.mixer.set
    public static let output = IdleSubsystem.output.set
    public static let options = IdleSubsystem.options.set
    public static let sticker = IdleSubsystem.sticker.set
    public static let all = IdleSet(IdleSubsystem.allCases)

    /// The members in MPD's order.
    public var subsystems: [IdleSubsystem] { IdleSubsystem.allCases.filter { contains($0.set) } }

    public var description: String { subsystems.map(\.rawValue).joined(separator: ",") }
}
