import FermataCore

/// Typed argument parsing for handlers, with MPD's error wording (all `ACK_ERROR_ARG`).
///
/// Every numeric argument a client sends is parsed here, through one helper per kind, and range-checked before any
/// handler sees it, so no value can reach a trapping conversion (`Int64(Double)`, overflowing `Int` arithmetic) in the
/// backend or the player. Handlers never call `Int(...)`/`Double(...)` on arguments themselves.
/// Pure; used by handlers on their own task.
extension CommandContext {
    /// An integer in MPD's `int` range (`Int32`).
    public func int(_ index: Int) throws(MPDError) -> Int { try ArgumentParser.int(arguments[index]) }

    /// A non-negative integer up to `Int32.max`.
    public func unsigned(_ index: Int) throws(MPDError) -> Int { try ArgumentParser.unsigned(arguments[index]) }

    public func bool(_ index: Int) throws(MPDError) -> Bool { try ArgumentParser.bool(arguments[index]) }

    /// An absolute song time in seconds (see `ArgumentParser.seconds`).
    public func seconds(_ index: Int) throws(MPDError) -> Double { try ArgumentParser.seconds(arguments[index]) }

    /// A signed song time in seconds (see `ArgumentParser.signedSeconds`).
    public func signedSeconds(_ index: Int) throws(MPDError) -> Double {
        try ArgumentParser.signedSeconds(arguments[index])
    }

    /// A signed offset in milliseconds (see `ArgumentParser.milliseconds`).
    public func milliseconds(_ index: Int) throws(MPDError) -> Int { try ArgumentParser.milliseconds(arguments[index]) }

    public func range(_ index: Int) throws(MPDError) -> PositionRange { try ArgumentParser.range(arguments[index]) }

    public func entryID(_ index: Int) throws(MPDError) -> EntryID { EntryID(try unsigned(index)) }

    /// `N`, `+N` or `-N` (MPD 0.23 relative positions).
    public func insertPosition(_ index: Int) throws(MPDError) -> QueueInsertPosition {
        try ArgumentParser.insertPosition(arguments[index])
    }

    /// A library URI checked by `URIValidator`; one with an empty, `.` or `..` component is refused with `unsafe`,
    /// MPD's answer for a name its database does not hold (`No such directory` where MPD looks up a directory or
    /// song, `No such song` where it wants a song).
    public func uri(_ index: Int, unsafe: MPDError = .notFound("No such directory")) throws(MPDError) -> String {
        try URIValidator.checked(arguments[index], handlers: backend.capabilities.urlHandlers, unsafe: unsafe)
    }

    /// A stored playlist name checked by `StoredPlaylistName`.
    public func playlistName(_ index: Int) throws(MPDError) -> String {
        try StoredPlaylistName.validate(arguments[index])
        return arguments[index]
    }
}

/// Number and range parsing shared by handlers and parsers: one function per kind of argument, each returning a value
/// inside documented bounds or throwing `ACK_ERROR_ARG` with MPD's wording (`Integer expected`, `Number too large`,
/// `Number is negative`, `Float expected`, `Negative value not allowed`, `Malformed range`).
///
/// Pure; callable from any thread.
public enum ArgumentParser {
    /// The longest song time MPD can represent (`SongTime`: unsigned 32-bit milliseconds), about 49.7 days.
    public static let maxSeconds = Double(UInt32.max) / 1000
    /// The largest magnitude of a signed song time (`SignedSongTime`: signed 32-bit milliseconds), about 24.8 days.
    public static let maxSignedSeconds = Double(Int32.max) / 1000
    /// The largest magnitude of a millisecond offset (`loop_nudge`): the `SignedSongTime` range.
    public static let maxMilliseconds = Int(Int32.max)

    /// An integer in `Int32`'s range (MPD's `ParseCommandArgInt`); a leading `+` is accepted.
    public static func int(_ text: String) throws(MPDError) -> Int {
        guard let value = Int(text) else {
            let digits = text.drop { $0 == "-" || $0 == "+" }
            if !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit) { throw tooLarge(text) }
            throw .badArgument("Integer expected: \(text)")
        }
        guard value <= Int(Int32.max), value >= Int(Int32.min) else { throw tooLarge(text) }
        return value
    }

    /// An integer within `bounds`; outside it `message` (or MPD's `Number too large`).
    public static func int(_ text: String, in bounds: ClosedRange<Int>, _ message: String? = nil) throws(MPDError)
        -> Int
    {
        let value = try int(text)
        guard bounds.contains(value) else { throw message.map(MPDError.badArgument) ?? tooLarge(text) }
        return value
    }

    /// A non-negative integer up to `max` (at most `Int32.max`). A negative number is `Number too large`, as MPD's
    /// `ParseCommandArgUnsigned` (`strtoul`) reads `-1` as the largest value.
    public static func unsigned(_ text: String, max: Int = Int(Int32.max)) throws(MPDError) -> Int {
        let value = try int(text)
        guard value >= 0 else { throw tooLarge(text) }
        guard value <= max else { throw tooLarge(text) }
        return value
    }

    /// `0` or `1`.
    public static func bool(_ text: String) throws(MPDError) -> Bool {
        switch text {
        case "0": return false
        case "1": return true
        default: throw .badArgument("Boolean (0/1) expected: \(text)")
        }
    }

    /// A finite decimal number (`Float expected` for anything else, NaN included; `Number too large` for ±inf).
    public static func finite(_ text: String) throws(MPDError) -> Double {
        guard let value = Double(text), !value.isNaN else { throw .badArgument("Float expected: \(text)") }
        guard value.isFinite else { throw tooLarge(text) }
        return value
    }

    /// An absolute time in seconds (MPD's `ParseCommandArgSongTime`): finite, not negative, at most `maxSeconds`.
    public static func seconds(_ text: String) throws(MPDError) -> Double {
        guard let value = Double(text), !value.isNaN else { throw .badArgument("Float expected: \(text)") }
        guard value >= 0 else { throw .badArgument("Negative value not allowed: \(text)") }
        guard value <= maxSeconds else { throw tooLarge(text) }
        return value
    }

    /// A signed time in seconds (MPD's `ParseCommandArgSignedSongTime`): finite, magnitude at most `maxSignedSeconds`.
    public static func signedSeconds(_ text: String) throws(MPDError) -> Double {
        let value = try finite(text)
        guard abs(value) <= maxSignedSeconds else { throw tooLarge(text) }
        return value
    }

    /// A signed whole number of milliseconds, magnitude at most `maxMilliseconds`.
    public static func milliseconds(_ text: String) throws(MPDError) -> Int {
        try int(text, in: -maxMilliseconds...maxMilliseconds)
    }

    /// A decimal number within `bounds` (beats per minute, say): not a number is `invalid`; outside the bounds, NaN
    /// and ±inf included, `outOfRange`.
    public static func number(
        _ text: String, in bounds: ClosedRange<Double>, invalid: String, outOfRange: String
    ) throws(MPDError) -> Double {
        guard let value = Double(text) else { throw .badArgument(invalid) }
        guard bounds.contains(value) else { throw .badArgument(outOfRange) }
        return value
    }

    /// A whole percentage (tempo, speed trainer steps) within `bounds`; anything else is `message`.
    public static func percent(_ text: String, in bounds: ClosedRange<Int>, _ message: String) throws(MPDError) -> Int {
        guard let value = Int(text), bounds.contains(value) else { throw .badArgument(message) }
        return value
    }

    /// A queue version (`plchanges`, `plchangesposid`): an unsigned 32-bit number, as MPD's `ParseCommandArgU32`,
    /// which is `strtoul`: a leading `-` negates modulo 2³² (`-1` is 4294967295, a version newer than any, which
    /// clients send to get the whole queue). Magnitudes past `UInt32.max` are `Number too large`.
    public static func version(_ text: String) throws(MPDError) -> UInt32 {
        let negative = text.hasPrefix("-")
        let digits = negative || text.hasPrefix("+") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit) else {
            throw .badArgument("Integer expected: \(text)")
        }
        guard let value = UInt32(digits) else { throw tooLarge(text) }
        return negative ? 0 &- value : value
    }

    /// `N`, `+N` or `-N` (MPD 0.23 relative positions); N at most `Int32.max`.
    public static func insertPosition(_ text: String) throws(MPDError) -> QueueInsertPosition {
        if let first = text.first, first == "+" || first == "-" {
            let digits = text.dropFirst()
            guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit) else {
                throw .badArgument("Bad position: \(text)")
            }
            guard let offset = Int(digits), offset <= Int(Int32.max) else { throw tooLarge(text) }
            return first == "+" ? .afterCurrent(offset) : .beforeCurrent(offset)
        }
        return .absolute(try unsigned(text))
    }

    /// `N` (one position), `START:END`, `START:` (to the end), or `-1` (everything, for old clients); both ends
    /// between 0 and `Int32.max`, END not before START (MPD's `ParseCommandArgRange`).
    public static func range(_ text: String) throws(MPDError) -> PositionRange {
        if text == "-1" { return .all }
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let start = try rangeEnd(parts[0], text)
        guard parts.count == 2 else { return .single(start) }
        if parts[1].isEmpty { return PositionRange(start: start, end: nil) }
        let end = try rangeEnd(parts[1], text)
        guard end >= start else { throw .badArgument("Malformed range: \(text)") }
        return PositionRange(start: start, end: end)
    }

    /// One end of a range: digits with an optional sign, 0 ... `Int32.max`.
    private static func rangeEnd(_ part: Substring, _ text: String) throws(MPDError) -> Int {
        let digits = part.drop { $0 == "-" || $0 == "+" }
        guard part.count - digits.count <= 1, !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit) else {
            throw .badArgument("Integer or range expected: \(text)")
        }
        guard part.first != "-" else { throw .badArgument("Number is negative: \(text)") }
        guard let value = Int(digits), value <= Int(Int32.max) else { throw tooLarge(text) }
        return value
    }

    static func tooLarge(_ text: String) -> MPDError { .badArgument("Number too large: \(text)") }
}

extension Character {
    /// `0`–`9` only (`isNumber` also accepts other scripts' digits and fractions, which `Int(_:)` refuses).
    var isASCIIDigit: Bool { isASCII && isWholeNumber }
}
