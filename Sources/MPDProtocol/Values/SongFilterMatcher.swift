/// Evaluates a `SongFilter` against `SongInfo` values in memory, with MPD's semantics: a tag test holds when any value
/// of the tag matches; `== ''` also holds when the tag is missing; `any` looks at every tag and the URI.
///
/// Compiles regular expressions once; not `Sendable` (Swift `Regex` is not), so make one per task.
public struct SongFilterMatcher {
    /// Why a filter could not be compiled (a bad regular expression).
    public struct InvalidPattern: Error, Sendable {
        public var pattern: String
    }

    private let filter: SongFilter
    private var regexes: [String: Regex<AnyRegexOutput>] = [:]

    public init(_ filter: SongFilter) throws(InvalidPattern) {
        self.filter = filter
        var found: [StringMatch] = []
        Self.collectRegexes(filter, into: &found)
        for match in found where regexes[Self.key(match)] == nil {
            do {
                let regex = try Regex(match.value)
                regexes[Self.key(match)] = match.foldCase ? regex.ignoresCase() : regex
            } catch {
                throw InvalidPattern(pattern: match.value)
            }
        }
    }

    /// Whether `song` satisfies the filter.
    public func matches(_ song: SongInfo) -> Bool { evaluate(filter, song) }

    private func evaluate(_ filter: SongFilter, _ song: SongInfo) -> Bool {
        switch filter {
        case let .and(parts): return parts.allSatisfy { evaluate($0, song) }
        case let .not(inner): return !evaluate(inner, song)
        case let .base(directory):
            let trimmed = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
            return trimmed.isEmpty || song.uri.hasPrefix(trimmed + "/")
        case let .modifiedSince(time): return (song.lastModified ?? Int64.min) >= time
        case let .string(.uri, match): return test(match, song.uri)
        case let .string(.anyTag, match): return test(match, song.uri) || song.tags.contains { test(match, $0.value) }
        case let .string(.tag(type), match):
            let values = song.values(type)
            if values.isEmpty { return match.op == .equals && match.value.isEmpty }
            return values.contains { test(match, $0) }
        }
    }

    private func test(_ match: StringMatch, _ value: String) -> Bool {
        if match.op == .regex {
            guard let regex = regexes[Self.key(match)] else { return false }
            return (try? regex.firstMatch(in: value)) != nil
        }
        let subject = match.foldCase ? value.lowercased() : value
        let wanted = match.foldCase ? match.value.lowercased() : match.value
        switch match.op {
        case .equals: return subject == wanted
        case .contains: return wanted.isEmpty || subject.contains(wanted)
        case .startsWith: return subject.hasPrefix(wanted)
        case .regex: return false
        }
    }

    private static func key(_ match: StringMatch) -> String { (match.foldCase ? "i:" : "c:") + match.value }

    private static func collectRegexes(_ filter: SongFilter, into found: inout [StringMatch]) {
        switch filter {
        case let .and(parts): for part in parts { collectRegexes(part, into: &found) }
        case let .not(inner): collectRegexes(inner, into: &found)
        case let .string(_, match) where match.op == .regex: found.append(match)
        case .string, .base, .modifiedSince: break
        }
    }
}
