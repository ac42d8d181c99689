import FermataCore
import Testing
@testable import WebRemote

/// What a tap on the page becomes (`PlayerRoutes.command`): each control action with its value, every number checked
/// before it is converted, so NaN, infinities and huge values are a 400, never a trap.
@Suite struct WebControlTests {
    @Test func eachActionBecomesItsCommand() throws {
        #expect(try PlayerRoutes.command("toggle", nil) == .action(.playPause))
        #expect(try PlayerRoutes.command("tempo_by", -5) == .action(.changeTempo(by: -5)))
        #expect(try PlayerRoutes.command("transpose", -2.5) == .action(.setTranspose(cents: -250)))
        #expect(try PlayerRoutes.command("again", nil) == .action(.loopLast(seconds: 8)))
        #expect(try PlayerRoutes.command("again_bars", 4) == .action(.loopLastBars(4, beatsPerBar: 4)))
        #expect(try PlayerRoutes.command("section_play", 2) == .action(.playSection(.index(1))))
        #expect(try PlayerRoutes.command("count_in", 0) == .action(.countIn(nil)))
        #expect(try PlayerRoutes.command("count_in", 4) == .action(.countIn(CountInPlan(beats: 4))))
        #expect(try PlayerRoutes.command("random", 1) == .option(.random(true)))
        #expect(try PlayerRoutes.command("section_save", nil) == .saveSection)
        #expect(try PlayerRoutes.command("trainer", nil) == .action(.toggleTrainer))
        #expect(try PlayerRoutes.command("trainer_again", nil) == .action(.trainerAgain))
    }

    @Test(arguments: [("volume", Double.nan), ("volume", .infinity), ("volume", 101), ("volume", 50.5), ("seek", -1),
                      ("seek", 1e308), ("tempo", 49), ("tempo", 151), ("transpose", 13), ("again", 0.1),
                      ("section_play", 0), ("section_play", 65), ("count_in", 17), ("volume_by", -1e18),
                      ("repeat", 2)])
    func outOfRangeValuesAreRefused(_ action: String, _ value: Double) {
        #expect(throws: WebFailure.self) { _ = try PlayerRoutes.command(action, value) }
    }

    @Test func unknownActionsAndMissingValuesAreRefused() {
        #expect(throws: WebFailure.self) { _ = try PlayerRoutes.command("reboot", nil) }
        #expect(throws: WebFailure.self) { _ = try PlayerRoutes.command("seek", nil) }
        #expect(throws: WebFailure.self) { _ = try PlayerRoutes.command("volume", nil) }
    }

    @Test func uploadNamesCannotLeaveTheirFolder() throws {
        #expect(try UploadHandler.checkedName("Song 01 - Ünïcödé.flac") == "Song 01 - Ünïcödé.flac")
        for name in ["", ".", "..", ".hidden.mp3", "a/b.mp3", "../x.mp3", "x\u{0}.mp3", "x\n.mp3", String(repeating: "é", count: 200)] {
            #expect(throws: WebFailure.self, "\(name.debugDescription)") { _ = try UploadHandler.checkedName(name) }
        }
    }

    @Test func sessionCookiesHaveOneShape() {
        #expect(WebAccess.sessionID(ofCookie: String(repeating: "a", count: 32) + "." + String(repeating: "0", count: 64))
                == String(repeating: "a", count: 32))
        #expect(WebAccess.sessionID(ofCookie: String(repeating: "A", count: 32) + "." + String(repeating: "0", count: 64)) == nil)
        #expect(WebAccess.sessionID(ofCookie: "a.b") == nil)
        #expect(WebAccess.randomHex(bytes: 16).count == 32)
    }

    /// The first page (HTML, CSS, JavaScript, the manifest and the icons) stays within 60 KB compressed: what a phone
    /// on a slow Wi-Fi fetches before it can tap (issue 36's budget).
    @Test func theFirstPageIsSmall() throws {
        let assets = WebAssets()
        var total = 0
        for path in ["/", "/app.css", "/app.js", "/views.js", "/manifest.webmanifest", "/icon.svg", "/icon-180.png"] {
            let asset = try #require(assets.asset(at: path), "\(path)")
            total += asset.gzip?.count ?? asset.raw.count
            if let gzip = asset.gzip { #expect(gzip.count < asset.raw.count && gzip.starts(with: [0x1f, 0x8b])) }
        }
        #expect(total <= 60 * 1024, "first page: \(total) bytes compressed")
        #expect(assets.asset(at: "/../etc/passwd") == nil && assets.asset(at: "/app.js.map") == nil)
    }
}
