import FermataCore

/// What one handler invocation gets and gives: the arguments, the backend, the connection's settings (which
/// `password`, `tagtypes` and `binarylimit` change), the response body (capped at what the client may still be
/// sent; loops printing many entries stop once `response.isFull`) and what the connection should do next.
///
/// A value owned by the running command (a task of `CommandExecutor`); never shared.
public struct CommandContext: Sendable {
    /// The command's canonical name (for messages).
    public let name: String
    public let arguments: [String]
    public let backend: any MPDBackend
    public let config: SessionConfig
    public var client: ClientSettings
    public var response: Response
    public var outcome: CommandOutcome = .continue

    /// `outputLimit`: the most bytes the response may hold (see `Response.limit`).
    public init(
        name: String, arguments: [String], backend: any MPDBackend, config: SessionConfig, client: ClientSettings,
        outputLimit: Int = .max
    ) {
        self.name = name
        self.arguments = arguments
        self.backend = backend
        self.config = config
        self.client = client
        response = Response(limit: outputLimit)
    }

    /// The argument at `index`, or nil when absent.
    public func argument(_ index: Int) -> String? { index < arguments.count ? arguments[index] : nil }

    /// Writes a song with the connection's enabled tags.
    public mutating func printSong(_ song: SongInfo) { response.song(song, tags: client.tagTypes) }

    /// Writes songs in order until the response is full (the client is then dropped; the rest would be discarded).
    public mutating func printSongs(_ songs: some Sequence<SongInfo>) {
        for song in songs {
            if response.isFull { return }
            printSong(song)
        }
    }
}

/// What the connection does after a command.
public enum CommandOutcome: Sendable, Hashable {
    case `continue`
    /// `close`: drop the connection without an answer.
    case close
    /// `idle`: wait for changes in these subsystems.
    case idle(IdleSet)
}

/// One row of the command table: MPD's `{ name, permission, min, max, handler }`.
///
/// Immutable data; the table is shared by all connections.
public struct CommandSpec: Sendable {
    public typealias Handler = @Sendable (inout CommandContext) async throws -> Void

    public let name: String
    public let permission: Permission
    public let minArguments: Int
    /// nil: no upper bound.
    public let maxArguments: Int?
    public let handler: Handler

    public init(
        _ name: String, _ permission: Permission, _ minArguments: Int, _ maxArguments: Int?,
        _ handler: @escaping Handler
    ) {
        self.name = name
        self.permission = permission
        self.minArguments = minArguments
        self.maxArguments = maxArguments
        self.handler = handler
    }

    /// Checks the permission, then the argument count, with MPD's messages.
    public func check(arguments count: Int, permissions: Permission) throws(MPDError) {
        guard permissions.isSuperset(of: permission) else { throw .noPermission(name) }
        if let maxArguments, minArguments == maxArguments, count != maxArguments {
            throw .badArgument("wrong number of arguments for \"\(name)\"")
        }
        if count < minArguments { throw .badArgument("too few arguments for \"\(name)\"") }
        if let maxArguments, count > maxArguments { throw .badArgument("too many arguments for \"\(name)\"") }
    }
}
