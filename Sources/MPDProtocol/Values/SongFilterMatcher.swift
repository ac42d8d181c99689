/// Evaluates a `SongFilter` against `SongInfo` values in memory, with MPD's semantics: a tag test holds when any value
/// of the tag matches; `== ''` also holds when the tag is missing; `any` looks at every tag and the URI.
///
/// The filter is compiled once, at creation: case-insensitive needles are folded then (never per song), regular
/// expressions compiled. Per song, each subject (URI, tag value) is folded at most once however many tests look at it.
/// Made by backends for one query; not `Sendable` (a compiled `FilterRegex` belongs to one task), so make one per task.
public struct SongFilterMatcher {
    /// Why a filter could not be compiled (a bad regular expression).
    public struct InvalidPattern: Error, Sendable {
        public var pattern: String
    }

    /// One compiled string test: the needle as compared (already folded when `foldCase`), or the compiled regex.
    struct Test {
        var op: StringMatch.Operator
        var needle: String
        var foldCase: Bool
        var regex: FilterRegex?

        /// Whether `subject` (folded by the caller when `foldCase`, except for regexes) passes.
        func holds(_ subject: String) -> Bool {
            switch op {
            case .equals: return subject == needle
            case .contains: return needle.isEmpty || subject.contains(needle)
            case .startsWith: return subject.hasPrefix(needle)
            case .regex:
                guard let regex else { return false }
                return regex.matches(subject)
            }
        }

        /// Regexes fold case themselves (`REG_ICASE`); the other operators compare folded subjects.
        var wantsFoldedSubject: Bool { foldCase && op != .regex }
    }

    /// The compiled filter.
    indirect enum Node {
        case and([Node])
        case not(Node)
        case string(FilterSubject, Test)
        /// Songs whose URI starts with `prefix` (nil: every song, the root).
        case base(prefix: String?)
        case modifiedSince(Int64)
        case addedSince(Int64)
    }

    private let root: Node

    public init(_ filter: SongFilter) throws(InvalidPattern) {
        var regexes: [String: FilterRegex] = [:]
        root = try Self.compile(filter, regexes: &regexes)
    }

    /// Whether `song` satisfies the filter.
    public func matches(_ song: SongInfo) -> Bool {
        var subjects = Subjects(song)
        return evaluate(root, &subjects)
    }

    /// The needles of the string tests in filter order, exactly as they are compared (folded for `search`).
    var needles: [String] {
        var found: [String] = []
        func walk(_ node: Node) {
            switch node {
            case let .and(parts): parts.forEach(walk)
            case let .not(inner): walk(inner)
            case let .string(_, test): found.append(test.needle)
            case .base, .modifiedSince, .addedSince: break
            }
        }
        walk(root)
        return found
    }

    private func evaluate(_ node: Node, _ subjects: inout Subjects) -> Bool {
        switch node {
        case let .and(parts):
            for part in parts where !evaluate(part, &subjects) { return false }
            return true
        case let .not(inner): return !evaluate(inner, &subjects)
        case let .base(prefix): return prefix.map { subjects.song.uri.hasPrefix($0) } ?? true
        case let .modifiedSince(time): return (subjects.song.lastModified ?? Int64.min) >= time
        case let .addedSince(time): return subjects.song.added.map { $0 >= time } ?? false
        case let .string(.uri, test): return test.holds(subjects.uri(folded: test.wantsFoldedSubject))
        case let .string(.anyTag, test):
            if test.holds(subjects.uri(folded: test.wantsFoldedSubject)) { return true }
            for index in subjects.song.tags.indices where test.holds(subjects.tag(index, test.wantsFoldedSubject)) {
                return true
            }
            return false
        case let .string(.tag(type), test):
            var present = false
            for index in subjects.song.tags.indices where subjects.song.tags[index].type == type {
                present = true
                if test.holds(subjects.tag(index, test.wantsFoldedSubject)) { return true }
            }
            return !present && test.op == .equals && test.needle.isEmpty
        }
    }

    private static func compile(
        _ filter: SongFilter, regexes: inout [String: FilterRegex]
    ) throws(InvalidPattern) -> Node {
        switch filter {
        case let .and(parts):
            var nodes: [Node] = []
            for part in parts { nodes.append(try compile(part, regexes: &regexes)) }
            return .and(nodes)
        case let .not(inner): return .not(try compile(inner, regexes: &regexes))
        case let .base(directory):
            let trimmed = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
            return .base(prefix: trimmed.isEmpty ? nil : trimmed + "/")
        case let .modifiedSince(time): return .modifiedSince(time)
        case let .addedSince(time): return .addedSince(time)
        case let .string(subject, match):
            var test = Test(
                op: match.op, needle: match.foldCase && match.op != .regex ? match.value.lowercased() : match.value,
                foldCase: match.foldCase)
            if match.op == .regex {
                let key = (match.foldCase ? "i:" : "c:") + match.value
                if let regex = regexes[key] {
                    test.regex = regex
                } else {
                    do {
                        test.regex = try FilterRegex(match.value, ignoreCase: match.foldCase)
                    } catch {
                        throw InvalidPattern(pattern: match.value)
                    }
                    regexes[key] = test.regex
                }
            }
            return .string(subject, test)
        }
    }
}

/// One song's subjects for a match, each folded at most once, on first use.
private struct Subjects {
    let song: SongInfo
    private var foldedURI: String?
    private var foldedTags: [String?] = []

    init(_ song: SongInfo) { self.song = song }

    mutating func uri(folded: Bool) -> String {
        guard folded else { return song.uri }
        if let foldedURI { return foldedURI }
        let value = song.uri.lowercased()
        foldedURI = value
        return value
    }

    mutating func tag(_ index: Int, _ folded: Bool) -> String {
        guard folded else { return song.tags[index].value }
        if foldedTags.isEmpty { foldedTags = Array(repeating: nil, count: song.tags.count) }
        if let value = foldedTags[index] { return value }
        let value = song.tags[index].value.lowercased()
        foldedTags[index] = value
        return value
    }
}
