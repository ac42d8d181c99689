import FermataCore
import Foundation
import MPDProtocol
import Testing
@testable import WebRemote

/// The JSON the API answers where the schema asks more than "leave nil out": `learning` written as null, a stream's
/// station and title in the status, a ranged entry's status giving the file's length beside the file's position, and
/// the stream URLs the queue takes.
@Suite struct WebJSONTests {
    static func text(_ value: some Encodable) -> String { String(decoding: WebJSON.encode(value), as: UTF8.self) }

    /// openapi.yaml requires `learning` (nullable): it was left out when no card was being learnt.
    @Test func cardsSayLearningNullWhenNoCardIsLearnt() throws {
        let idle = try #require(try JSONSerialization.jsonObject(
            with: WebJSON.encode(WebJSON.Cards(cards: [], unknown: ["00C0FFEE"], learning: nil))) as? [String: Any])
        #expect(idle.keys.sorted() == ["cards", "learning", "unknown"] && idle["learning"] is NSNull, "\(idle)")
        #expect(Self.text(WebJSON.Cards(cards: [], unknown: [], learning: "album:A")).contains(#""learning":"album:A""#))
    }

    /// A queued section (1.5 s to 5 s of a 200 s file) playing 3 s into the file: the status's duration is the file's
    /// 200 s, as elapsed is the file's position (it was the part's 3.5 s, so the position lay past the end); the song
    /// keeps the part's length and its range.
    @Test func aRangedEntrysStatusGivesTheFilesLength() throws {
        var info = SongInfo(uri: "A/one.flac", duration: 3.5, queuePosition: 0, queueID: 7)
        info.span = PlaySpan(startMilliseconds: 1_500, endMilliseconds: 5_000)
        let song = WebJSON.Song(info)
        #expect(song.duration == 3.5 && song.range == "1.500-5.000")
        var player = PlayerStatus()
        player.duration = 200
        #expect(WebReadings.fileDuration(player: player, song: song) == 200)
        player.duration = nil
        #expect(WebReadings.fileDuration(player: player, song: song) == nil, "never the part's length")
        #expect(WebReadings.fileDuration(player: player, song: WebJSON.Song(SongInfo(uri: "b.flac", duration: 90))) == 90)
    }

    @Test func aStreamHasItsStationAndTitleAndNoLength() throws {
        var player = PlayerStatus()
        player.duration = 12
        player.stream = StreamTags(name: "Radio Fermata", title: "Nocturne")
        #expect(WebReadings.fileDuration(player: player, song: nil) == nil)
        let song = WebJSON.Song(SongInfo(uri: "http://radio.example/live", tags: [TagValue(.title, "Nocturne"),
                                                                                  TagValue(.name, "Radio Fermata")]))
        #expect(song.name == "Radio Fermata" && song.title == "Nocturne")
        #expect(Self.text(WebJSON.Stream(name: "Radio Fermata", title: nil)) == #"{"name":"Radio Fermata"}"#)
    }

    /// The web queue takes http(s) URLs as MPD's `add` does, checked first so that a bad one is a 400 saying why.
    @Test func streamURLsAreCheckedBeforeTheyAreQueued() throws {
        for good in ["http://127.0.0.1:8000/ok.mp3?metaint=16000&titles=A|B", "HTTPS://radio.example/live",
                     "https://radio.example", "http://" + String(repeating: "a", count: 2041)] {
            #expect(try QueueRoutes.checkedStream(good) == good)
        }
        for bad in ["ftp://radio.example/x", "gopher://x/", "file:///etc/passwd", "http://", "https:///live",
                    "http://?x", "http://radio.example/a b", "http://radio.example/\u{7}", "http://x/\n",
                    "http://" + String(repeating: "a", count: 2042)] {
            #expect(throws: WebFailure.self, "\(bad.prefix(40))") { _ = try QueueRoutes.checkedStream(bad) }
        }
    }
}
