import MPDProtocol
import MPDTestSupport
import Testing

@Suite struct FilterParserTests {
    func parse(_ args: [String], fold: Bool = false) throws -> SongFilter {
        try SongFilterParser.parse(args, foldCase: fold)
    }

    @Test func legacyPairsAreExactForFindAndSubstringForSearch() throws {
        #expect(
            try parse(["artist", "X", "album", "Y"])
                == .and([
                    .string(.tag(.artist), StringMatch(.equals, "X")), .string(.tag(.album), StringMatch(.equals, "Y")),
                ]))
        #expect(try parse(["Any", "x"], fold: true) == .string(.anyTag, StringMatch(.contains, "x", foldCase: true)))
        #expect(try parse(["filename", "a.flac"]) == .string(.uri, StringMatch(.equals, "a.flac")))
        #expect(try parse(["base", "Bach"]) == .base("Bach"))
        #expect(try parse(["modified-since", "1700000000"]) == .modifiedSince(1_700_000_000))
        #expect(try parse(["modified-since", "2023-11-14T22:13:20Z"]) == .modifiedSince(1_700_000_000))
    }

    @Test func expressions() throws {
        #expect(try parse(["(artist == 'X')"]) == .string(.tag(.artist), StringMatch(.equals, "X")))
        #expect(try parse(["(Artist != \"X\")"]) == .not(.string(.tag(.artist), StringMatch(.equals, "X"))))
        #expect(
            try parse(["(album contains 'Su')"], fold: true)
                == .string(.tag(.album), StringMatch(.contains, "Su", foldCase: true)))
        #expect(try parse(["(title starts_with 'Gym')"]) == .string(.tag(.title), StringMatch(.startsWith, "Gym")))
        #expect(try parse(["(title =~ '^A.*a$')"]) == .string(.tag(.title), StringMatch(.regex, "^A.*a$")))
        #expect(try parse(["(!(artist == 'X'))"]) == .not(.string(.tag(.artist), StringMatch(.equals, "X"))))
        #expect(
            try parse(["((artist == 'A') AND (album == 'B') AND (!(title == 'C')))"])
                == .and([
                    .string(.tag(.artist), StringMatch(.equals, "A")), .string(.tag(.album), StringMatch(.equals, "B")),
                    .not(.string(.tag(.title), StringMatch(.equals, "C"))),
                ]))
        #expect(try parse(["(file == 'a\\'b')"]) == .string(.uri, StringMatch(.equals, "a'b")))
        #expect(
            try parse(["(base 'Bach')", "(artist == 'J. S. Bach')"])
                == .and([
                    .base("Bach"), .string(.tag(.artist), StringMatch(.equals, "J. S. Bach")),
                ]))
    }

    @Test(arguments: [
        (["(artist == 'X'"], "')' expected"),
        (["(artist = 'X')"], "'==' or '!=' expected"),
        (["(artist == X)"], "Quoted string expected"),
        (["(artist == 'X)"], "Closing quote not found"),
        (["(bogus == 'X')"], "Unknown filter type: bogus"),
        (["((artist == 'A') OR (album == 'B'))"], "'AND' expected"),
        (["(artist == 'X') trailing"], "Unparsed garbage after expression"),
        (["artist"], "Incorrect number of filter arguments"),
        (["bogus", "x"], "Unknown filter type"),
        (["base", "../etc"], "Bad URI"),
        (["modified-since", "yesterday"], "Malformed time stamp: yesterday"),
    ])
    func malformedFilters(args: [String], message: String) {
        #expect(throws: MPDError(.argument, message)) { try parse(args) }
    }

    @Test func matcherFollowsMPDSemantics() throws {
        let song = SongInfo(
            uri: "Bach/x.flac", tags: [TagValue(.artist, "A"), TagValue(.artist, "Bee")], lastModified: 50)
        func matches(_ args: [String], fold: Bool = false) throws -> Bool {
            try SongFilterMatcher(try parse(args, fold: fold)).matches(song)
        }
        #expect(try matches(["(artist == 'Bee')"]))
        #expect(try !matches(["(artist != 'Bee')"]))
        #expect(try matches(["(album == '')"]))
        #expect(try !matches(["(artist == 'bee')"]))
        #expect(try matches(["(artist == 'bee')"], fold: true))
        #expect(try matches(["(any contains 'bach')"], fold: true))
        #expect(try matches(["(artist =~ '^B.e$')"]))
        #expect(try matches(["(base 'Bach')"]))
        #expect(try !matches(["(base 'Bac')"]))
        #expect(try matches(["(modified-since '50')"]))
        #expect(try !matches(["(modified-since '51')"]))
    }

    @Test func badRegexIsReported() throws {
        #expect(throws: SongFilterMatcher.InvalidPattern.self) { try SongFilterMatcher(try parse(["(title =~ '(')"])) }
    }
}
