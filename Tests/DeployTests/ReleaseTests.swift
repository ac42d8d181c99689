import Foundation
import Testing
import TestSupport

/// A release is one number in four places that must agree: the programs' `--version`, the newest released heading of
/// `docs/NEWS.md` (with the same date the manual pages carry), the git tag on a release commit, and the package's
/// version (`deploy/make-deb.sh` derives it from the tag). The manual pages name it too.
@Suite struct ReleaseTests {
    static var news: String {
        (try? String(contentsOfFile: DeployTests.project + "/docs/NEWS.md", encoding: .utf8)) ?? ""
    }

    /// The newest released heading: "## 1.0.0 — 2026-11-29" → ("1.0.0", "2026-11-29").
    static var newestRelease: (version: String, date: String)? {
        for line in news.split(separator: "\n") where line.hasPrefix("## ") && !line.hasPrefix("## Unreleased") {
            let words = line.dropFirst(3).split(separator: " ")
            guard words.count >= 3 else { return nil }
            return (String(words[0]), String(words[2]))
        }
        return nil
    }

    @Test func theProgramsSayTheVersionTheNewsReleasedLast() async throws {
        let release = try #require(Self.newestRelease, "no release heading in docs/NEWS.md")
        for program in ["fermata", "fermatad"] {
            let result = try await onThread { try ProgramResult.run(DeployTests.binaries + "/" + program, ["--version"]) }
            #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == release.version,
                    "\(program) --version: \(result.output)")
        }
        let page = try String(contentsOfFile: DeployTests.project + "/docs/man/fermata.toml.5", encoding: .utf8)
        #expect(page.hasPrefix(".TH FERMATA.TOML 5 \"\(release.date)\" \"fermata \(release.version)\""),
                "the manual pages carry the release's date and number")
    }

    /// On a tagged commit the tag is the release the programs say (a clone without tags passes: nothing to compare).
    @Test func aReleaseTagNamesTheProgramsVersion() throws {
        let described = try ProgramResult.run("/usr/bin/git", ["-C", DeployTests.project, "tag", "--points-at", "HEAD"])
        let tags = described.output.split(separator: "\n").filter { $0.hasPrefix("v") }
        let release = try #require(Self.newestRelease)
        for tag in tags { #expect(tag.dropFirst() == release.version, "tag \(tag) on a build that says \(release.version)") }
    }
}
