import Synchronization

/// The last `listall`/`listallinfo` answer, as bytes, kept while the library has not changed since it was built.
///
/// Such answers cost far more than sending them (a 5,000-track `listallinfo` is 1.5 MB, built from every track),
/// clients repeat them (a client starting up, a script polling, a command list of 200), and a box with no screen
/// never needs two different ones at once. One slot, at most `capacity` bytes: what the answer cost to build it is
/// freed as soon as the next differing answer replaces it.
///
/// Shared by every connection; any thread.
public final class ListingCache: Sendable {
    /// What an answer depends on besides the library.
    public struct Key: Sendable, Hashable {
        public var uri: String
        public var full: Bool
        public var tags: Set<TagType>
        public var hidePlaylists: Bool

        public init(uri: String, full: Bool, tags: Set<TagType>, hidePlaylists: Bool) {
            self.uri = uri
            self.full = full
            self.tags = tags
            self.hidePlaylists = hidePlaylists
        }
    }

    private struct Slot {
        var key: Key
        var version: Int
        var bytes: [UInt8]
    }

    public let capacity: Int
    private let version: @Sendable () -> Int
    private let slot = Mutex<Slot?>(nil)

    /// `version` changes whenever the library does (`Library.contentVersion`).
    public init(capacity: Int = 4 << 20, version: @escaping @Sendable () -> Int) {
        self.capacity = capacity
        self.version = version
    }

    /// The library's version now: read it before building an answer and store the answer with it.
    public var currentVersion: Int { version() }

    /// The stored answer for `key`, if the library has not changed since it was built.
    public func lookup(_ key: Key) -> [UInt8]? {
        let now = version()
        return slot.withLock { slot in slot.flatMap { $0.key == key && $0.version == now ? $0.bytes : nil } }
    }

    /// Keeps `bytes` as the answer for `key` at library `version` (ignored past `capacity`).
    public func store(_ key: Key, version: Int, bytes: [UInt8]) {
        guard bytes.count <= capacity else { return }
        // An answer grows by doubling: kept as it is, a 1.1 MB `listall` held 2.2 MB for good. A copy is its size.
        let exact = bytes.withUnsafeBufferPointer { [UInt8]($0) }
        slot.withLock { $0 = Slot(key: key, version: version, bytes: exact) }
    }
}
