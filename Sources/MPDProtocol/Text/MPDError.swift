/// An MPD protocol error: one of MPD's ACK codes and a message, rendered as `ACK [code@index] {command} message`.
///
/// A plain value; handlers and `MPDBackend` implementations throw it from any task. Any other error a backend throws is
/// reported as `ACK_ERROR_SYSTEM` (52) with the error's description.
public struct MPDError: Error, Sendable, Hashable, CustomStringConvertible {
    /// MPD's numeric ACK codes (`src/protocol/Ack.hxx`).
    public enum Code: Int, Sendable, Hashable {
        case notList = 1
        case argument = 2
        case password = 3
        case permission = 4
        case unknown = 5
        case noExist = 50
        case playlistMax = 51
        case system = 52
        case playlistLoad = 53
        case updateAlready = 54
        case playerSync = 55
        case exist = 56
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "[\(code.rawValue)] \(message)" }

    /// The ACK line (with its newline) for this error at `index` in a command list (0 outside lists).
    public func ackLine(index: Int, command: String) -> String {
        "ACK [\(code.rawValue)@\(index)] {\(command)} \(ResponseText.sanitized(message))\n"
    }

    // Common errors, worded as MPD words them.
    public static func unknownCommand(_ name: String) -> MPDError { MPDError(.unknown, "unknown command \"\(name)\"") }
    public static func noPermission(_ name: String) -> MPDError {
        MPDError(.permission, "you don't have permission for \"\(name)\"")
    }
    public static func badArgument(_ message: String) -> MPDError { MPDError(.argument, message) }
    public static func noSuchSong() -> MPDError { MPDError(.noExist, "No such song") }
    public static func noSuchPlaylist() -> MPDError { MPDError(.noExist, "No such playlist") }
    public static func badSongIndex() -> MPDError { MPDError(.argument, "Bad song index") }
    public static func notFound(_ what: String) -> MPDError { MPDError(.noExist, what) }
    /// MPD 0.24's `no such sticker: "NAME"` (the name quoted as fmt's `{:?}` does).
    public static func noSuchSticker(_ name: String?) -> MPDError {
        MPDError(.noExist, "no such sticker" + (name.map { ": " + StickerCommands.quoted($0) } ?? ""))
    }
}
