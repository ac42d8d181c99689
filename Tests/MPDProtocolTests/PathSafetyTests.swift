import Foundation
import MPDProtocol
import MPDTestSupport
import Testing

@Suite struct PathSafetyTests {
    @Test(arguments: [
        // MPD looks `..` up in its database and does not find it: each command's own answer for a missing name.
        ("add ../../etc/passwd", "ACK [50@0] {add} No such directory\n"),
        ("add Bach/../../etc/passwd", "ACK [50@0] {add} No such directory\n"),
        ("add ./loose.wav", "ACK [50@0] {add} No such directory\n"),
        ("add Bach//x", "ACK [50@0] {add} No such directory\n"),
        ("addid ../x", "ACK [50@0] {addid} No such song\n"),
        ("add /etc/passwd", "ACK [4@0] {add} Access denied\n"),
        ("addid /etc/passwd", "ACK [4@0] {addid} Access denied\n"),
        ("add file:///etc/passwd", "ACK [50@0] {add} Unsupported URI scheme\n"),
        ("add http://example.invalid/x.mp3", "ACK [50@0] {add} Unsupported URI scheme\n"),
        ("lsinfo ../", "ACK [50@0] {lsinfo} No such directory\n"),
        ("listall ../", "ACK [50@0] {listall} No such directory\n"),
        ("listfiles /", "OK\n"),
        ("listfiles /etc", "ACK [4@0] {listfiles} Access denied\n"),
        ("albumart ../x 0", "ACK [50@0] {albumart} No file exists\n"),
        ("readpicture /etc/passwd 0", "ACK [4@0] {readpicture} Access denied\n"),
        ("playlistadd p ../../etc/passwd", "ACK [50@0] {playlistadd} No such directory\n"),
        ("sticker set song ../x a b", "ACK [50@0] {sticker} No such song\n"),
        ("update ../..", "ACK [2@0] {update} Malformed path\n"),
        ("find base ../", "ACK [2@0] {find} Bad URI\n"),
    ])
    func escapingURIsAreRefused(command: String, answer: String) async {
        var driver = SessionDriver()
        let output = await driver.send(command)
        #expect(output == answer || (answer == "OK\n" && output.hasSuffix("OK\n")))
        #expect(await driver.backend.performed.isEmpty)
    }

    @Test func symlinksLeavingTheMusicDirectoryAreRefused() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("fermata-guard-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let music = root.appendingPathComponent("music")
        try FileManager.default.createDirectory(
            at: music.appendingPathComponent("album"), withIntermediateDirectories: true)
        _ = FileManager.default.createFile(
            atPath: music.appendingPathComponent("album/a.flac").path, contents: Data([1]))
        _ = FileManager.default.createFile(atPath: root.appendingPathComponent("secret").path, contents: Data([2]))
        try FileManager.default.createSymbolicLink(
            atPath: music.appendingPathComponent("evil").path, withDestinationPath: "/etc")
        try FileManager.default.createSymbolicLink(
            atPath: music.appendingPathComponent("sneaky.flac").path, withDestinationPath: "../secret")
        try FileManager.default.createSymbolicLink(
            atPath: music.appendingPathComponent("alias").path, withDestinationPath: "album")

        let guardian = MusicPathGuard(musicDirectory: music.path)
        #expect(try guardian.resolve("album/a.flac").hasSuffix("/music/album/a.flac"))
        #expect(try guardian.resolve("alias/a.flac").hasSuffix("/music/album/a.flac"))
        #expect(try guardian.resolve("") == guardian.root)
        #expect(throws: MPDError(.permission, "Access denied")) { try guardian.resolve("evil/passwd") }
        #expect(throws: MPDError(.permission, "Access denied")) { try guardian.resolve("sneaky.flac") }
        #expect(throws: MPDError(.permission, "Access denied")) { try guardian.resolve("/etc/passwd") }
        #expect(throws: MPDError(.argument, "Malformed URI")) { try guardian.resolve("../secret") }
        #expect(throws: MPDError(.noExist, "No such directory")) { try guardian.resolve("nosuch.flac") }
    }

    /// The music directory may be missing at start (a drive mounted late): the guard refuses paths then, and follows
    /// the directory once it appears (it used to resolve the root once and throw when it was missing).
    @Test func aMusicDirectoryThatAppearsLaterIsFollowed() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("fermata-guard-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let music = root.appendingPathComponent("music")
        let guardian = MusicPathGuard(musicDirectory: music.path)
        #expect(guardian.root == nil)
        #expect(throws: MPDError(.noExist, "No such directory")) { try guardian.resolve("a.flac") }
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: music.appendingPathComponent("a.flac").path, contents: Data([1]))
        #expect(try guardian.resolve("a.flac").hasSuffix("/music/a.flac"))
    }
}
