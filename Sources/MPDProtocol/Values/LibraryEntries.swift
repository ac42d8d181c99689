/// One entry of a directory listing (`lsinfo`, `listall`, `listallinfo`).
///
/// A plain value built by the `MPDBackend`.
public enum DirectoryEntry: Sendable, Hashable {
    /// A sub-directory, by its path relative to the music directory.
    case directory(path: String, lastModified: Int64?)
    case song(SongInfo)
    /// A stored playlist (MPD lists them in `lsinfo` of the root).
    case playlist(StoredPlaylistInfo)
}

/// One entry of `listfiles`: any file or directory, song or not, named relative to the listed directory.
public struct FileEntry: Sendable, Hashable {
    public var name: String
    public var isDirectory: Bool
    /// Size in bytes (files only).
    public var size: Int64?
    public var lastModified: Int64?

    public init(name: String, isDirectory: Bool, size: Int64? = nil, lastModified: Int64? = nil) {
        self.name = name
        self.isDirectory = isDirectory
        self.size = size
        self.lastModified = lastModified
    }
}

/// A stored playlist's name and modification time (`listplaylists`).
public struct StoredPlaylistInfo: Sendable, Hashable {
    public var name: String
    public var lastModified: Int64?

    public init(name: String, lastModified: Int64? = nil) {
        self.name = name
        self.lastModified = lastModified
    }
}

/// One audio output (`outputs`). Ids are small integers, stable for the life of the daemon.
public struct OutputInfo: Sendable, Hashable {
    public var id: Int
    public var name: String
    /// The plugin name MPD clients show, e.g. `alsa`, `null`.
    public var plugin: String
    public var enabled: Bool
    /// `attribute: name=value` lines, in order.
    public var attributes: [OutputAttribute]

    public init(id: Int, name: String, plugin: String, enabled: Bool, attributes: [OutputAttribute] = []) {
        self.id = id
        self.name = name
        self.plugin = plugin
        self.enabled = enabled
        self.attributes = attributes
    }
}

/// One runtime attribute of an output, e.g. `dop=0`.
public struct OutputAttribute: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A decoder plugin for `decoders`.
public struct DecoderPluginInfo: Sendable, Hashable {
    public var name: String
    public var suffixes: [String]
    public var mimeTypes: [String]

    public init(name: String, suffixes: [String], mimeTypes: [String]) {
        self.name = name
        self.suffixes = suffixes
        self.mimeTypes = mimeTypes
    }
}

/// Facts about the backend that do not change while it runs.
public struct BackendCapabilities: Sendable, Hashable {
    public var decoders: [DecoderPluginInfo]
    /// URL schemes `add` accepts besides library paths (`urlhandlers`); Fermata plays local files only.
    public var urlHandlers: [String]
    /// Whether stickers are available (MPD hides `sticker` without a sticker database).
    public var stickers: Bool

    public init(decoders: [DecoderPluginInfo] = [], urlHandlers: [String] = [], stickers: Bool = true) {
        self.decoders = decoders
        self.urlHandlers = urlHandlers
        self.stickers = stickers
    }
}
