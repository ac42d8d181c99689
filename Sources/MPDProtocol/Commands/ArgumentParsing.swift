import FermataCore

/// Typed argument parsing for handlers, with MPD's error wording (all `ACK_ERROR_ARG`).
///
/// Pure; used by handlers on their own task.
extension CommandContext {
    public func int(_ index: Int) throws(MPDError) -> Int { try ArgumentParser.int(arguments[index]) }

    public func unsigned(_ index: Int) throws(MPDError) -> Int {
        let value = try int(index)
        guard value >= 0 else { throw .badArgument("Number is negative: \"\(arguments[index])\"") }
        return value
    }

    public func bool(_ index: Int) throws(MPDError) -> Bool {
        switch arguments[index] {
        case "0": return false
        case "1": return true
        default: throw .badArgument("Boolean (0/1) expected: \"\(arguments[index])\"")
        }
    }

    public func seconds(_ index: Int) throws(MPDError) -> Double {
        guard let value = Double(arguments[index]), value.isFinite else {
            throw .badArgument("Float expected: \"\(arguments[index])\"")
        }
        guard value >= 0 else { throw .badArgument("Negative value not allowed: \"\(arguments[index])\"") }
        return value
    }

    public func range(_ index: Int) throws(MPDError) -> PositionRange { try ArgumentParser.range(arguments[index]) }

    public func entryID(_ index: Int) throws(MPDError) -> EntryID { EntryID(try unsigned(index)) }

    /// `N`, `+N` or `-N` (MPD 0.23 relative positions).
    public func insertPosition(_ index: Int) throws(MPDError) -> QueueInsertPosition {
        try ArgumentParser.insertPosition(arguments[index])
    }

    /// A library URI checked by `URIValidator`.
    public func uri(_ index: Int) throws(MPDError) -> String {
        try URIValidator.checked(arguments[index], handlers: backend.capabilities.urlHandlers)
    }

    /// A stored playlist name checked by `StoredPlaylistName`.
    public func playlistName(_ index: Int) throws(MPDError) -> String {
        try StoredPlaylistName.validate(arguments[index])
        return arguments[index]
    }
}

/// Number and range parsing shared by handlers and parsers.
public enum ArgumentParser {
    public static func int(_ text: String) throws(MPDError) -> Int {
        guard let value = Int(text) else {
            let digits = text.drop { $0 == "-" || $0 == "+" }
            if !digits.isEmpty, digits.allSatisfy(\.isNumber) { throw .badArgument("Number too large: \"\(text)\"") }
            throw .badArgument("Integer expected: \"\(text)\"")
        }
        guard value <= Int(Int32.max), value >= Int(Int32.min) else {
            throw .badArgument("Number too large: \"\(text)\"")
        }
        return value
    }

    /// `N`, `+N` or `-N` (MPD 0.23 relative positions).
    public static func insertPosition(_ text: String) throws(MPDError) -> QueueInsertPosition {
        if let first = text.first, first == "+" || first == "-" {
            guard let offset = Int(text.dropFirst()), offset >= 0 else {
                throw .badArgument("Bad position: \"\(text)\"")
            }
            return first == "+" ? .afterCurrent(offset) : .beforeCurrent(offset)
        }
        let value = try int(text)
        guard value >= 0 else { throw .badArgument("Number is negative: \"\(text)\"") }
        return .absolute(value)
    }

    /// `N` (one position), `START:END`, `START:` (to the end), or `-1` (everything, for old clients).
    public static func range(_ text: String) throws(MPDError) -> PositionRange {
        if text == "-1" { return .all }
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let start = Int(parts[0]) else { throw .badArgument("Integer or range expected: \"\(text)\"") }
        guard start >= 0 else { throw .badArgument("Number is negative: \"\(text)\"") }
        guard start <= Int(Int32.max) else { throw .badArgument("Number too large: \"\(text)\"") }
        guard parts.count == 2 else { return .single(start) }
        if parts[1].isEmpty { return PositionRange(start: start, end: nil) }
        guard let end = Int(parts[1]) else { throw .badArgument("Integer expected: \"\(text)\"") }
        guard end >= 0 else { throw .badArgument("Number is negative: \"\(text)\"") }
        guard end >= start else { throw .badArgument("Malformed range: \"\(text)\"") }
        return PositionRange(start: start, end: end)
    }
}
