#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Parses filter arguments of `find`, `search`, `list`, `count`, `playlistfind`… into a `SongFilter`.
///
/// Each argument starting with `(` is an expression; the others are legacy `TAG VALUE` pairs (exact match for `find`,
/// case-insensitive substring for `search`). All parts are ANDed. Errors are `ACK_ERROR_ARG` with MPD's wording.
///
/// Bounds, so one search cannot cost the box seconds of CPU (MPD has only its line limit): a value (tag text, URI,
/// regular expression) is at most `maxValueBytes` bytes of UTF-8, a filter holds at most `maxConditions` conditions,
/// and expressions nest at most `maxDepth` parentheses deep.
/// Pure; callable from any thread.
public enum SongFilterParser {
    /// The longest value in a filter, in UTF-8 bytes (longer: `Filter value too long (at most 1024 bytes)`).
    public static let maxValueBytes = 1024
    /// The most conditions (tag, `any`, `file`, `base`, `modified-since` tests) in one filter.
    public static let maxConditions = 64
    /// The deepest nesting of parentheses in one expression.
    public static let maxDepth = 32

    public static func parse(_ arguments: some Collection<String>, foldCase: Bool) throws(MPDError) -> SongFilter {
        var rest = ArraySlice(arguments)
        guard !rest.isEmpty else { throw .badArgument("Incorrect number of filter arguments") }
        var parts: [SongFilter] = []
        while let first = rest.first {
            if first.hasPrefix("(") {
                parts.append(try parseExpression(first, foldCase: foldCase))
                rest = rest.dropFirst()
                continue
            }
            guard rest.count >= 2 else { throw .badArgument("Incorrect number of filter arguments") }
            let value = rest[rest.startIndex + 1]
            parts.append(try legacyPair(first, value, foldCase: foldCase))
            rest = rest.dropFirst(2)
        }
        let filter = SongFilter.all(parts)
        guard conditions(in: filter) <= maxConditions else {
            throw .badArgument("Too many filter conditions (at most \(maxConditions))")
        }
        return filter
    }

    /// The tests in `filter` (its leaves).
    static func conditions(in filter: SongFilter) -> Int {
        switch filter {
        case let .and(parts): parts.reduce(0) { $0 + conditions(in: $1) }
        case let .not(inner): conditions(in: inner)
        case .string, .base, .modifiedSince, .addedSince: 1
        }
    }

    /// `value` if it is within `maxValueBytes`.
    static func checkedValue(_ value: String) throws(MPDError) -> String {
        guard value.utf8.count <= maxValueBytes else {
            throw .badArgument("Filter value too long (at most \(maxValueBytes) bytes)")
        }
        return value
    }

    /// One complete expression such as `((artist == 'A') AND (!(album contains "b")))`.
    public static func parseExpression(_ text: String, foldCase: Bool) throws(MPDError) -> SongFilter {
        var scanner = ExpressionScanner(Array(text.utf8), foldCase: foldCase)
        let filter = try scanner.expression()
        guard scanner.atEnd else { throw .badArgument("Unparsed garbage after expression") }
        return filter
    }

    static func legacyPair(_ name: String, _ value: String, foldCase: Bool) throws(MPDError) -> SongFilter {
        let value = try checkedValue(value)
        switch name.lowercased() {
        case "base":
            guard URIValidator.isSafe(value) || value.isEmpty else { throw .badArgument("Bad URI") }
            return .base(value)
        case "modified-since": return .modifiedSince(try timestamp(value))
        case "added-since": return .addedSince(try timestamp(value))
        default:
            guard let subject = subject(name) else { throw .badArgument("Unknown filter type") }
            // MPD 0.20 compatibility: "search" (foldCase) also means substring.
            return .string(subject, StringMatch(foldCase ? .contains : .equals, value, foldCase: foldCase))
        }
    }

    /// `file`/`filename`, `any`, or a tag name.
    static func subject(_ name: String) -> FilterSubject? {
        switch name.lowercased() {
        case "file", "filename": return .uri
        case "any": return .anyTag
        default: return TagType(name: name).map(FilterSubject.tag)
        }
    }

    /// A Unix time stamp, or ISO 8601 `YYYY-MM-DD[THH:MM[:SS]][Z]` in UTC.
    static func timestamp(_ text: String) throws(MPDError) -> Int64 {
        if let seconds = Int64(text), seconds >= 0 { return seconds }
        let digits = text.split(whereSeparator: { "-T:Z".contains($0) }).map { Int32($0) }
        guard digits.count >= 3, digits.count <= 6, !digits.contains(nil) else {
            throw .badArgument("Malformed time stamp: \(text)")
        }
        var parts = tm()
        parts.tm_year = digits[0]! - 1900
        parts.tm_mon = digits[1]! - 1
        parts.tm_mday = digits[2]!
        parts.tm_hour = digits.count > 3 ? digits[3]! : 0
        parts.tm_min = digits.count > 4 ? digits[4]! : 0
        parts.tm_sec = digits.count > 5 ? digits[5]! : 0
        return Int64(timegm(&parts))
    }
}

/// A cursor over one filter expression; private to the parser.
private struct ExpressionScanner {
    let bytes: [UInt8]
    let foldCase: Bool
    var index = 0
    /// Open parentheses of the expressions being parsed (bounded by `SongFilterParser.maxDepth`).
    var depth = 0

    init(_ bytes: [UInt8], foldCase: Bool) {
        self.bytes = bytes
        self.foldCase = foldCase
    }

    var atEnd: Bool { index >= bytes.count }
    var current: UInt8 { index < bytes.count ? bytes[index] : 0 }

    mutating func skipSpaces() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
    }

    mutating func expect(_ byte: UInt8, _ message: String) throws(MPDError) {
        guard current == byte else { throw .badArgument(message) }
        index += 1
        skipSpaces()
    }

    mutating func expression() throws(MPDError) -> SongFilter {
        depth += 1
        defer { depth -= 1 }
        guard depth <= SongFilterParser.maxDepth else { throw .badArgument("Filter expression nested too deeply") }
        try expect(UInt8(ascii: "("), "'(' expected")
        if current == UInt8(ascii: "(") {
            var parts = [try expression()]
            while current != UInt8(ascii: ")") {
                guard try word() == "AND" else { throw .badArgument("'AND' expected") }
                parts.append(try expression())
            }
            try expect(UInt8(ascii: ")"), "')' expected")
            return parts.count == 1 ? parts[0] : .and(parts)
        }
        if current == UInt8(ascii: "!") {
            index += 1
            skipSpaces()
            guard current == UInt8(ascii: "(") else { throw .badArgument("'(' expected") }
            let inner = try expression()
            try expect(UInt8(ascii: ")"), "')' expected")
            return .not(inner)
        }
        let name = try word()
        let filter: SongFilter
        switch name {
        case "base": filter = .base(try quoted())
        case "modified-since": filter = .modifiedSince(try SongFilterParser.timestamp(try quoted()))
        case "added-since": filter = .addedSince(try SongFilterParser.timestamp(try quoted()))
        default:
            if name.lowercased() == "audioformat" { throw .badArgument("AudioFormat filters are not supported") }
            guard let subject = SongFilterParser.subject(name) else {
                throw .badArgument("Unknown filter type: \(name)")
            }
            filter = try comparison(subject)
        }
        try expect(UInt8(ascii: ")"), "')' expected")
        return filter
    }

    mutating func comparison(_ subject: FilterSubject) throws(MPDError) -> SongFilter {
        let operators: [(String, StringMatch.Operator, Bool)] = [
            ("==", .equals, false), ("!=", .equals, true), ("=~", .regex, false), ("!~", .regex, true),
            ("contains ", .contains, false), ("!contains ", .contains, true),
            ("starts_with ", .startsWith, false), ("!starts_with ", .startsWith, true),
        ]
        for (token, op, negated) in operators where hasPrefix(token) {
            index += token.utf8.count
            skipSpaces()
            let match = StringMatch(op, try quoted(), foldCase: foldCase)
            return negated ? .not(.string(subject, match)) : .string(subject, match)
        }
        throw .badArgument("'==' or '!=' expected")
    }

    func hasPrefix(_ token: String) -> Bool {
        let utf8 = Array(token.utf8)
        guard index + utf8.count <= bytes.count else { return false }
        return zip(bytes[index..<index + utf8.count], utf8).allSatisfy { ($0 | 0x20) == ($1 | 0x20) }
    }

    /// A tag or keyword: letters, `_` and `-`.
    mutating func word() throws(MPDError) -> String {
        let start = index
        while index < bytes.count, isWordByte(bytes[index]) { index += 1 }
        guard index > start else { throw .badArgument("Word expected") }
        let word = String(decoding: bytes[start..<index], as: UTF8.self)
        skipSpaces()
        return word
    }

    func isWordByte(_ byte: UInt8) -> Bool {
        ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A) || byte == 0x5F || byte == 0x2D
    }

    /// A `'single'` or `"double"` quoted value; a backslash escapes the next byte.
    mutating func quoted() throws(MPDError) -> String {
        let quote = current
        guard quote == 0x22 || quote == 0x27 else { throw .badArgument("Quoted string expected") }
        index += 1
        var value: [UInt8] = []
        while current != quote {
            if current == 0x5C { index += 1 }
            guard index < bytes.count else { throw .badArgument("Closing quote not found") }
            value.append(bytes[index])
            index += 1
        }
        index += 1
        skipSpaces()
        return try SongFilterParser.checkedValue(String(decoding: value, as: UTF8.self))
    }
}
