import FermataCore

/// Per-server protocol settings shared by all connections: passwords, default permissions, protocol limits.
///
/// Immutable once the server runs; a plain value.
public struct SessionConfig: Sendable {
    /// The protocol version in the greeting (`OK MPD 0.24.0`): the MPD release whose commands are implemented.
    public static let protocolVersion = "0.24.0"

    /// Passwords and what each unlocks (MPD's `password "secret@read,add,control"`).
    public var passwords: [String: Permission]
    /// Permissions of a client that has not sent a password (MPD's `default_permissions`; MPD's default: all).
    public var defaultPermissions: Permission
    /// The most bytes one command list may collect before the client is dropped (MPD's `max_command_list_size`).
    public var maxCommandListBytes: Int
    /// The largest `binarylimit` a client may set.
    public var maxBinaryLimit: Int

    public init(
        passwords: [String: Permission] = [:], defaultPermissions: Permission = .all,
        maxCommandListBytes: Int = 2 * 1024 * 1024, maxBinaryLimit: Int = 8 * 1024 * 1024 - 4096
    ) {
        self.passwords = passwords
        self.defaultPermissions = defaultPermissions
        self.maxCommandListBytes = maxCommandListBytes
        self.maxBinaryLimit = maxBinaryLimit
    }

    /// The settings a new connection starts with.
    public var initialClientSettings: ClientSettings { ClientSettings(permissions: defaultPermissions) }
}

/// The per-connection settings that commands change: permissions (`password`), enabled tags (`tagtypes`),
/// the binary chunk size (`binarylimit`), protocol features (`protocol`).
///
/// A value owned by one connection's `ConnectionSession`.
public struct ClientSettings: Sendable, Hashable {
    public static let defaultBinaryLimit = 8192
    public static let minimumBinaryLimit = 64

    public var permissions: Permission
    public var tagTypes: Set<TagType>
    public var binaryLimit: Int
    /// MPD 0.24's protocol features the client switched on (none at first).
    public var protocolFeatures: Set<ProtocolFeature> = []
    /// The connection's place for client-to-client messages (nil: the server offers none, e.g. a test session).
    public var mailbox: ClientMailbox?
    /// The client came through the Unix socket, so it runs on the box with the socket's file permissions: commands
    /// that carry a secret (`web_password`) are refused anywhere else, where it would cross the network in clear.
    public var local = false

    public init(permissions: Permission, tagTypes: Set<TagType> = Set(TagType.allCases), binaryLimit: Int = 8192) {
        self.permissions = permissions
        self.tagTypes = tagTypes
        self.binaryLimit = binaryLimit
    }
}

/// An MPD 0.24 protocol feature a client may switch on for its connection (`protocol enable NAME`), with MPD's name.
///
/// A plain value; usable anywhere.
public enum ProtocolFeature: String, Sendable, Hashable, CaseIterable {
    /// `lsinfo` of the root lists no stored playlists.
    case hidePlaylistsInRoot = "hide_playlists_in_root"

    /// Parses a feature name case-insensitively, as MPD does.
    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else {
            return nil
        }
        self = match
    }
}
