import FermataCore
import MPDProtocol
import Testing

@Suite struct ResponseFormattingTests {
    @Test func ackLinesUseMPDsFormat() {
        #expect(
            MPDError(.noExist, "No such song").ackLine(index: 3, command: "playid")
                == "ACK [50@3] {playid} No such song\n")
        #expect(
            MPDError.unknownCommand("foo").ackLine(index: 0, command: "") == "ACK [5@0] {} unknown command \"foo\"\n")
        #expect(MPDError(.argument, "two\nlines").ackLine(index: 0, command: "x") == "ACK [2@0] {x} two lines\n")
    }

    @Test func ackCodesAreMPDs() {
        let codes: [MPDError.Code: Int] = [
            .notList: 1, .argument: 2, .password: 3, .permission: 4, .unknown: 5, .noExist: 50, .playlistMax: 51,
            .system: 52, .playlistLoad: 53, .updateAlready: 54, .playerSync: 55, .exist: 56,
        ]
        for (code, value) in codes { #expect(code.rawValue == value) }
    }

    @Test func numbersAndTimes() {
        #expect(ResponseText.fixed3(12.5) == "12.500")
        #expect(ResponseText.fixed3(0.0004) == "0.000")
        #expect(ResponseText.fixed3(150.0006) == "150.001")
        #expect(ResponseText.wholeSeconds(150.5) == 151)
        #expect(ResponseText.iso8601(0) == "1970-01-01T00:00:00Z")
        #expect(ResponseText.iso8601(1_700_002_000) == "2023-11-14T22:46:40Z")
    }

    @Test func valuesCannotInjectLines() {
        var response = Response()
        response.line("Title", "evil\nOK\r\nACK")
        #expect(response.description == "Title: evil OK ACK\n")
    }

    @Test func binaryChunkFraming() {
        var response = Response()
        response.line("size", 3)
        response.binary([0x00, 0x0A, 0xFF])
        #expect(response.bytes == Array("size: 3\nbinary: 3\n".utf8) + [0x00, 0x0A, 0xFF, 0x0A])
    }

    @Test func songLinesFollowMPDsOrderAndTagTypes() {
        var song = SongInfo(
            uri: "a/b.flac", tags: [TagValue(.title, "T"), TagValue(.artist, "A1"), TagValue(.artist, "A2")],
            duration: 61.2346, format: "44100:16:2", lastModified: 0, queuePosition: 4, queueID: 9
        )
        var response = Response()
        response.song(song, tags: Set(TagType.allCases))
        #expect(
            response.description == """
                file: a/b.flac
                Last-Modified: 1970-01-01T00:00:00Z
                Format: 44100:16:2
                Artist: A1
                Artist: A2
                Title: T
                Time: 61
                duration: 61.235
                Pos: 4
                Id: 9

                """)
        song.queuePosition = nil
        response = Response()
        response.song(song, tags: [.title])
        #expect(!response.description.contains("Artist") && !response.description.contains("Pos:"))
    }
}
