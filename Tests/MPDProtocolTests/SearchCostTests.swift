@testable import MPDProtocol
import MPDTestSupport
import Testing

/// Issue 13: `search any "<8,000 × a>"` cost seconds of CPU because the matcher folded the needle for every song and
/// tag. The needle is now folded once, when the matcher is built, and filter values, conditions and nesting are capped.
@Suite struct SearchCostTests {
    @Test func theMatcherFoldsNeedlesOnceWhenBuilt() throws {
        let filter = SongFilter.and([
            .string(.anyTag, StringMatch(.contains, "GymNOPÉDIE", foldCase: true)),
            .not(.string(.tag(.artist), StringMatch(.equals, "Erik SATIE", foldCase: false))),
            .string(.uri, StringMatch(.startsWith, "SATIE/", foldCase: true)),
            .string(.tag(.title), StringMatch(.regex, "^GYM", foldCase: true)),
        ])
        let matcher = try SongFilterMatcher(filter)
        // Folded at build time for case-insensitive tests; a case-sensitive needle and a regex source stay as given.
        #expect(matcher.needles == ["gymnopédie", "Erik SATIE", "satie/", "^GYM"])
        let satie = SampleLibrary.songs[3]
        #expect(matcher.matches(satie))
        #expect(!matcher.matches(SampleLibrary.songs[0]))
    }

    @Test func foldedMatchingKeepsMPDSemantics() throws {
        let satie = SampleLibrary.songs[3]
        func matches(_ match: StringMatch, _ subject: FilterSubject = .anyTag) throws -> Bool {
            try SongFilterMatcher(.string(subject, match)).matches(satie)
        }
        #expect(try matches(StringMatch(.contains, "ERIK", foldCase: true)))
        #expect(try !matches(StringMatch(.contains, "ERIK", foldCase: false)))
        #expect(try matches(StringMatch(.equals, "GYMNOPÉDIES", foldCase: true), .tag(.album)))
        #expect(try matches(StringMatch(.startsWith, "satie/gym", foldCase: true), .uri))
        #expect(try matches(StringMatch(.equals, "", foldCase: true), .tag(.composer)))
        #expect(try !matches(StringMatch(.equals, "", foldCase: true), .tag(.album)))
        #expect(try matches(StringMatch(.regex, "^gym", foldCase: true), .tag(.title)))
    }

    @Test func longFilterValuesAreRefusedWithAnACK() async {
        var driver = SessionDriver()
        let tooLong = String(repeating: "a", count: SongFilterParser.maxValueBytes + 1)
        let longest = String(repeating: "a", count: SongFilterParser.maxValueBytes)
        let ack = "Filter value too long (at most 1024 bytes)"
        #expect(await driver.send("search any \(String(repeating: "a", count: 8_000))") == "ACK [2@0] {search} \(ack)\n")
        #expect(await driver.send("search any \(tooLong)") == "ACK [2@0] {search} \(ack)\n")
        #expect(await driver.send("find \"(artist == '\(tooLong)')\"") == "ACK [2@0] {find} \(ack)\n")
        #expect(await driver.send("playlistsearch title \(tooLong)") == "ACK [2@0] {playlistsearch} \(ack)\n")
        #expect(await driver.send("count \"(title =~ '\(tooLong)')\"") == "ACK [2@0] {count} \(ack)\n")
        #expect(await driver.send("list album \"(artist contains '\(tooLong)')\"") == "ACK [2@0] {list} \(ack)\n")
        #expect(await driver.send("search any \(longest)") == "OK\n")
    }

    @Test func tooManyConditionsOrTooDeepNestingAreRefused() async {
        var driver = SessionDriver()
        // Legacy pairs are bounded by the tokenizer's 128 arguments already; one expression can hold many more.
        let clauses = Array(repeating: "(any contains 'a')", count: SongFilterParser.maxConditions + 1)
        let many = "(" + clauses.joined(separator: " AND ") + ")"
        #expect(await driver.send("search \"\(many)\"") == "ACK [2@0] {search} Too many filter conditions (at most 64)\n")
        let enough = Array(repeating: "any a", count: SongFilterParser.maxConditions).joined(separator: " ")
        #expect(await driver.send("search \(enough)").hasSuffix("OK\n"))
        func nested(_ depth: Int) -> String {
            String(repeating: "(", count: depth - 1) + "(artist == 'x')" + String(repeating: ")", count: depth - 1)
        }
        #expect(await driver.send("find \"\(nested(SongFilterParser.maxDepth))\"") == "OK\n")
        #expect(
            await driver.send("find \"\(nested(SongFilterParser.maxDepth + 1))\"")
                == "ACK [2@0] {find} Filter expression nested too deeply\n")
        #expect(await driver.send("find \"\(nested(3_000))\"") == "ACK [2@0] {find} Filter expression nested too deeply\n")
    }
}
