import FermataCore
@testable import MPDProtocol
import Testing

/// Filter regular expressions run on glibc's POSIX matcher: patterns that made Swift `Regex` backtrack for minutes
/// (and stall the daemon) answer at once, what would bring the blow-up back is refused, and the usual client
/// patterns keep working.
@Suite(.timeLimit(.minutes(1)))
struct FilterRegexTests {
    static func song(_ uri: String, title: String) -> SongInfo {
        var song = SongInfo(uri: uri)
        song.tags = [TagValue(.title, title)]
        return song
    }

    @Test(arguments: ["(.*.*)*X", "(.*)*(.*)*(.*)*Z", "(a|.)*(b|.)*(c|.)*Q", "(a*)*b", "((a+)+)+c"])
    func nestedQuantifiersAnswerAtOnce(pattern: String) throws {
        let long = Self.song(String(repeating: "a", count: 1024), title: String(repeating: "a", count: 1200))
        let matcher = try SongFilterMatcher(.string(.anyTag, StringMatch(.regex, pattern, foldCase: false)))
        // 1,000 songs of long subjects: minutes each with a backtracking engine.
        for _ in 0..<1_000 { #expect(!matcher.matches(long)) }
    }

    @Test func backreferencesAndHugeCountsAreRefused() {
        for pattern in ["(a*)*\\1", "((a{50}){50}){50}", "a{1000}", "x\\"] {
            #expect(throws: SongFilterMatcher.InvalidPattern.self, "\(pattern)") {
                try SongFilterMatcher(.string(.uri, StringMatch(.regex, pattern, foldCase: false)))
            }
        }
    }

    @Test func everydayPatternsMatchAsBefore() throws {
        let song = Self.song("Beatles/1965 Help/07 Yesterday.flac", title: "Yesterday")
        let cases: [(String, Bool, Bool)] = [
            ("^Beatles/", false, true), ("yesterday", true, true), ("yesterday", false, false),
            ("\\d{4}", false, true), ("/0[0-9] ", false, true), ("Help|Revolver", false, true),
            ("\\.ogg$", false, false), ("Yes.*?day", false, true), ("\\bHelp\\b", false, true),
        ]
        for (pattern, fold, expected) in cases {
            let subject: FilterSubject = pattern.contains("day") && !pattern.contains("Yes.*") ? .tag(.title) : .uri
            let matcher = try SongFilterMatcher(.string(subject, StringMatch(.regex, pattern, foldCase: fold)))
            #expect(matcher.matches(song) == expected, "\(pattern)")
        }
    }
}
