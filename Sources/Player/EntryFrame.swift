import FermataCore

/// A source frame in an entry.
public struct EntryFrame: Sendable, Hashable {
    public var entry: EntryID
    public var frame: Int64
}
