#if canImport(Glibc)
    import Glibc
#endif

/// A filter's regular expression (`=~`, `!~`), matched by glibc's POSIX engine instead of Swift `Regex`: Swift's
/// engine backtracks without limit, so one `find "(file =~ \"(.*.*)*X\")"` ran for minutes and four of them stalled
/// the whole daemon (MPD stops such patterns with PCRE's match limit). glibc matches extended regular expressions
/// without backtracking (a yes/no match, `REG_NOSUB`), in time polynomial in the subject; the two features that
/// would bring the blow-up back are refused at compile time: backreferences (`\1`) and large or nested interval
/// counts (`{n,m}`, which glibc expands into copies). Perl's `\d`/`\D` are translated (glibc knows `\w`, `\s`, `\b`);
/// lazy quantifiers (`*?`) mean the same for a yes/no match.
///
/// Owns its compiled `regex_t` (freed in `deinit`); used by one matcher on one task, not shared across threads.
final class FilterRegex {
    /// Why a pattern is refused (the message after "Bad regular expression").
    struct Refused: Error {
        var reason: String
    }

    /// The largest `{n,m}` bound, and how many intervals one pattern may have.
    static let maximumIntervalBound = 50
    static let maximumIntervals = 2

    private var compiled = regex_t()

    init(_ pattern: String, ignoreCase: Bool) throws(Refused) {
        let translated = try Self.translate(pattern)
        let flags = REG_EXTENDED | REG_NOSUB | (ignoreCase ? REG_ICASE : 0)
        let status = regcomp(&compiled, translated, flags)
        guard status == 0 else {
            var message = [CChar](repeating: 0, count: 256)
            regerror(status, &compiled, &message, message.count)
            regfree(&compiled)
            throw Refused(reason: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }

    deinit { regfree(&compiled) }

    /// Whether the pattern matches somewhere in `subject`.
    func matches(_ subject: String) -> Bool { regexec(&compiled, subject, 0, nil, 0) == 0 }

    /// Checks the pattern's intervals and backreferences and translates `\d`/`\D` (outside bracket expressions).
    static func translate(_ pattern: String) throws(Refused) -> String {
        var out = ""
        var intervals = 0
        var inBracket = false
        var characters = pattern.makeIterator()
        var previous: Character?
        while let character = characters.next() {
            defer { previous = character }
            if inBracket {
                out.append(character)
                if character == "]" && previous != "[" && previous != "^" { inBracket = false }
                continue
            }
            switch character {
            case "[":
                inBracket = true
                out.append(character)
            case "\\":
                guard let next = characters.next() else { throw Refused(reason: "trailing backslash") }
                if next.isASCII, next.isNumber { throw Refused(reason: "backreferences are not supported") }
                switch next {
                case "d": out += "[0-9]"
                case "D": out += "[^0-9]"
                default: out += "\\" + String(next)
                }
            case "{":
                intervals += 1
                var body = ""
                while let inner = characters.next(), inner != "}" { body.append(inner) }
                let bounds = body.split(separator: ",", omittingEmptySubsequences: false)
                guard intervals <= maximumIntervals, (1...2).contains(bounds.count),
                      bounds.allSatisfy({ $0.isEmpty || (Int($0).map { $0 <= maximumIntervalBound } ?? false) })
                else {
                    throw Refused(reason: "at most \(maximumIntervals) counted repetitions of at most \(maximumIntervalBound)")
                }
                out += "{" + body + "}"
            default:
                out.append(character)
            }
        }
        return out
    }
}
