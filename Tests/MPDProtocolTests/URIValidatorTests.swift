import MPDProtocol
import Testing
import TestSupport

/// `URIValidator` works on bytes (a run of 10,000 `add`s spent more time in String splitting than in adding); it
/// must answer exactly as the Character-based rules it replaced, for any string.
@Suite struct URIValidatorTests {
    /// The rules as first written, kept as the reference.
    static func referenceIsSafe(_ uri: String) -> Bool {
        if uri.isEmpty { return true }
        if uri.hasPrefix("/") || uri.utf8.contains(0) { return false }
        var path = Substring(uri)
        if path.hasSuffix("/") { path = path.dropLast() }
        return !path.split(separator: "/", omittingEmptySubsequences: false).contains { $0.isEmpty || $0 == "." || $0 == ".." }
    }

    static func referenceScheme(_ uri: String) -> String? {
        guard let range = uri.firstRange(of: "://") else { return nil }
        let scheme = uri[..<range.lowerBound]
        guard let first = scheme.first, first.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else { return nil }
        return scheme.lowercased()
    }

    @Test func bytesAnswerAsTheReferenceForRandomPaths() {
        let pieces = ["a", ".", "..", "...", "/", "//", ":", "://", "http", "H1+.-", "é", "🎻", "\u{0}", " ", "x.flac", "%2e"]
        var generator = SplitMix64(seed: 99)
        for _ in 0..<50_000 {
            let uri = (0..<Int.random(in: 0...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            #expect(URIValidator.isSafe(uri) == Self.referenceIsSafe(uri), "isSafe(\(uri.debugDescription))")
            #expect(URIValidator.scheme(of: uri) == Self.referenceScheme(uri), "scheme(\(uri.debugDescription))")
        }
    }

    @Test(arguments: [("a/b.flac", true), ("", true), ("a/", true), ("a//b", false), ("./a", false), ("a/..", false),
                      ("a/.../b", true), ("/a", false), ("a/../", false), ("a\u{0}b", false), ("a/./", false)])
    func knownPaths(_ uri: String, _ safe: Bool) {
        #expect(URIValidator.isSafe(uri) == safe)
    }
}
