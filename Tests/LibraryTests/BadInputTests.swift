import Decoders
import FermataCore
import Foundation
import Glibc
@testable import Library
import TestSupport
import Testing

@Suite("Bad input")
struct BadInputTests {
    /// Creates a file or link whose name is raw bytes (not necessarily UTF-8) inside `dir`.
    static func rename(_ from: String, toRawName name: [UInt8], in dir: String) throws {
        let target = Array(dir.utf8) + [UInt8(ascii: "/")] + name + [0]
        let ok = target.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { Glibc.rename(from, $0) }
        }
        guard ok == 0 else { throw POSIXError(.EIO) }
    }

    @Test("unreadable, empty, corrupt and mis-named files, bad UTF-8 and bad links are listed with reasons")
    func badFiles() async throws {
        let fixture = try LibraryFixture()
        let bad = fixture.file("Bad")
        try FileManager.default.createDirectory(atPath: bad, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: bad + "/empty.flac", contents: Data())
        _ = FileManager.default.createFile(atPath: bad + "/text.flac", contents: Data("just some text\n".utf8))
        _ = FileManager.default.createFile(atPath: bad + "/broken.flac",
                                       contents: Data(Array("fLaC".utf8) + [0x00, 0x00, 0x00, 0x22, 1, 2, 3]))
        _ = FileManager.default.createFile(atPath: bad + "/noise.wav",
                                           contents: Data((0..<300).map { UInt8($0 % 251) }))
        _ = FileManager.default.createFile(atPath: bad + "/cover.jpg", contents: Data("not audio, not looked at".utf8))
        try fixture.addFLAC("Bad/bad-tag.flac", seed: 501, tags: ["TITLE": "Fine"],
                            rawComments: [Array("ARTIST=Bad ".utf8) + [0xFF, 0xFE] + Array(" Artist".utf8)])
        try fixture.addFLAC("Bad/tmp-name.flac", seed: 502, tags: ["TITLE": "Odd name"])
        try Self.rename(bad + "/tmp-name.flac", toRawName: Array("odd ".utf8) + [0xE9, 0xFF] + Array(".flac".utf8),
                        in: bad)
        // A second name that differs from it only in an invalid byte: two files, two tracks (they used to collapse
        // into one "odd \u{FFFD}\u{FFFD}.flac" entry).
        try fixture.addFLAC("Bad/tmp-twin.flac", seed: 505, tags: ["TITLE": "Odd twin"])
        try Self.rename(bad + "/tmp-twin.flac", toRawName: Array("odd ".utf8) + [0xE9, 0xFE] + Array(".flac".utf8),
                        in: bad)
        try fixture.addFLAC("Bad/cover-art.flac", seed: 503, pictureBytes: 100_000)
        let outside = try TemporaryDirectory()
        try LibraryFixture.writeFLAC(outside.file("outside.flac"), seed: 504, tags: [:])
        symlink(outside.path, bad + "/outside-link")
        symlink(outside.file("outside.flac"), bad + "/outside-file.flac")
        symlink("/no/such/file.flac", bad + "/dangling.flac")
        symlink("..", bad + "/loop")
        symlink("../Artist 0", bad + "/alias")

        let library = try fixture.openLibrary()
        let summary = try await library.scan()
        let issues = try await library.issues()
        func kind(_ path: String) -> ScanIssue.Kind? { issues.first { $0.path == path }?.kind }
        #expect(kind("Bad/empty.flac") == .empty)
        #expect(kind("Bad/text.flac") == .unsupported)
        #expect(kind("Bad/broken.flac") == .corrupt)
        #expect(kind("Bad/noise.wav") == .unsupported)
        #expect(kind("Bad/bad-tag.flac") == .invalidTagText)
        let oddName = RawPath.text(Array("Bad/odd ".utf8) + [0xE9, 0xFF] + Array(".flac".utf8))
        let twinName = RawPath.text(Array("Bad/odd ".utf8) + [0xE9, 0xFE] + Array(".flac".utf8))
        #expect(oddName != twinName)
        #expect(kind(oddName) == .invalidName)
        #expect(kind(twinName) == .invalidName)
        #expect(kind("Bad/outside-link") == .outsideRoot)
        #expect(kind("Bad/outside-file.flac") == .outsideRoot)
        #expect(kind("Bad/dangling.flac") == .brokenSymlink)
        #expect(kind("Bad/loop") == .symlinkLoop)
        #expect(issues.allSatisfy { !$0.reason.isEmpty })
        #expect(!issues.contains { $0.path.hasSuffix("cover.jpg") })

        // Indexed despite their issues: the repaired tag and the raw name (whose real bytes are kept).
        #expect(try await library.track(path: "Bad/bad-tag.flac")?.artist == "Bad \u{FFFD}\u{FFFD} Artist")
        let odd = try #require(try await library.track(path: oddName))
        #expect(odd.title == "Odd name")
        #expect(odd.pathBytes == Array("Bad/odd ".utf8) + [0xE9, 0xFF] + Array(".flac".utf8))
        #expect(RawPath.bytes(odd.path) == odd.pathBytes, "the path keeps the bytes")
        #expect(try await library.track(path: twinName)?.title == "Odd twin")
        // Cover art is noted by hash and size.
        let cover = try #require(try await library.track(path: "Bad/cover-art.flac"))
        #expect(cover.pictureBytes == 100_000)
        #expect(cover.pictureHash?.count == 16)
        // A link to a directory inside the root is followed (the files appear under the link's path too).
        #expect(try await library.track(path: "Bad/alias/" + fixture.entries[0].path.split(separator: "/")
            .dropFirst().joined(separator: "/")) != nil)
        #expect(summary.issues == issues.count)
        #expect(summary.issuesFound == issues.count)

        // Rejected files are not reopened while unchanged, and their issues stay on record.
        let again = try await library.scan()
        #expect(again.filesOpened == 0)
        #expect(try await library.issues() == issues)
        #expect(again.issues == issues.count)

        // A fixed file is read again and its issue goes; a deleted bad file's issue goes.
        try LibraryFixture.writeFLAC(bad + "/broken.flac", seed: 505, tags: ["TITLE": "Fixed"])
        try FileManager.default.removeItem(atPath: bad + "/text.flac")
        let fixed = try await library.scan()
        #expect(fixed.filesOpened == 1 && fixed.added == 1)
        #expect(try await library.track(path: "Bad/broken.flac")?.title == "Fixed")
        let left = try await library.issues()
        #expect(!left.contains { $0.path == "Bad/broken.flac" || $0.path == "Bad/text.flac" })
        #expect(left.count == issues.count - 2)
    }

    @Test("a file that vanishes between the listing and the read is recorded, not indexed")
    func vanished() throws {
        let dir = try TemporaryDirectory()
        let job = ScanJob(path: Array("gone.flac".utf8), size: 1_000, modified: 1, trackID: nil, wasRejected: false)
        let outcome = TrackFileReader.read(job, root: dir.path, with: ScanReader())
        guard case let .rejected(kind, reason) = outcome.result else {
            Issue.record("expected a rejection")
            return
        }
        #expect(kind == .vanished)
        #expect(reason == "removed during the scan")
    }

    @Test("a known track whose file turns corrupt leaves the library with a reason")
    func trackTurnsCorrupt() async throws {
        let fixture = try LibraryFixture()
        let library = try fixture.openLibrary()
        _ = try await library.scan()
        let path = fixture.entries[9].path
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixture.file(path))))
        try Data(bytes.prefix(30)).write(to: URL(fileURLWithPath: fixture.file(path)))
        let summary = try await library.scan()
        #expect(summary.removed == 1 && summary.filesOpened == 1)
        #expect(try await library.track(path: path) == nil)
        #expect(try await library.issues().map(\.kind) == [.corrupt])
    }
}
