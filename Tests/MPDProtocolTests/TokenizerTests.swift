import FermataCore
import MPDProtocol
import Testing

@Suite struct TokenizerTests {
    func tokens(_ line: String) throws -> CommandLineTokenizer.Tokens? {
        try CommandLineTokenizer.tokenize(Array(line.utf8))
    }

    @Test func bareWordsAndQuotedStrings() throws {
        let parsed = try #require(try tokens(#"find artist "Erik Satie" album Gymnopédies"#))
        #expect(parsed.name == "find")
        #expect(parsed.arguments == ["artist", "Erik Satie", "album", "Gymnopédies"])
    }

    @Test func backslashEscapesInsideQuotes() throws {
        let parsed = try #require(try tokens(#"find "(Artist == \"A \\\"B\\\"\")" x"#))
        #expect(parsed.arguments == [#"(Artist == "A \"B\"")"#, "x"])
    }

    @Test func extraWhitespaceAndEmptyQuotedArgument() throws {
        let parsed = try #require(try tokens("add  \"\"\t  x  "))
        #expect(parsed.arguments == ["", "x"])
    }

    @Test func emptyLineHasNoCommand() throws {
        #expect(try tokens("") == nil)
    }

    @Test(arguments: [
        ("1status", "Letter expected", true),
        ("sta-tus", "Invalid word character", true),
        ("find \"abc", "Missing closing '\"'", false),
        ("find \"abc\"def", "Space expected after closing '\"'", false),
        ("find 'abc'", "Invalid unquoted character", false),
        ("find ab\"c", "Invalid unquoted character", false),
        ("find \"abc\\", "Missing closing '\"'", false),
    ])
    func malformedLines(line: String, message: String, inName: Bool) {
        #expect(throws: CommandLineTokenizer.Failure(message: message, inCommandName: inName)) {
            try tokens(line)
        }
    }

    @Test func tooManyArguments() {
        let line = "find" + String(repeating: " a", count: CommandLineTokenizer.maxArguments + 1)
        #expect(throws: CommandLineTokenizer.Failure(message: "Too many arguments", inCommandName: false)) {
            try tokens(line)
        }
    }

    @Test func invalidUTF8IsRepairedNotFatal() throws {
        let parsed = try #require(try CommandLineTokenizer.tokenize([0x61, 0x64, 0x64, 0x20, 0xFF, 0xFE]))
        #expect(parsed.name == "add")
        // Invalid bytes are kept (one-to-one), not repaired to U+FFFD: a file name need not be UTF-8.
        #expect(parsed.arguments == [RawPath.text([0xFF, 0xFE])])
        #expect(RawPath.bytes(parsed.arguments[0]) == [0xFF, 0xFE])
    }
}
