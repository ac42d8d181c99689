import MPDProtocol
import MPDTestSupport
import Testing

@Suite struct QueueCommandTests {
    func uris(_ driver: inout SessionDriver) async -> [String] {
        await driver.send("playlistinfo").split(separator: "\n").filter { $0.hasPrefix("file: ") }.map {
            String($0.dropFirst(6))
        }
    }

    @Test func addAddidAndPositions() async {
        var driver = SessionDriver()
        #expect(await driver.send("add Bach") == "OK\n")
        #expect(await uris(&driver).count == 3)
        #expect(await driver.send("addid loose.wav 0") == "Id: 4\nOK\n")
        #expect(await uris(&driver).first == "loose.wav")
        #expect(await driver.send("addid Bach") == "ACK [50@0] {addid} No such song\n")
        #expect(await driver.send("add nosuch") == "ACK [50@0] {add} No such directory\n")
        #expect(await driver.send("add loose.wav 9") == "ACK [2@0] {add} Bad song index\n")
        #expect(await driver.send("add loose.wav +0") == "ACK [2@0] {add} No current song\n")
        _ = await driver.send("play 1")
        #expect(await driver.send("addid \"Satie/Gymnopédie No. 1.ogg\" +0") == "Id: 5\nOK\n")
        #expect(await uris(&driver)[2] == "Satie/Gymnopédie No. 1.ogg")
    }

    @Test func deleteMoveAndShuffle() async {
        var driver = SessionDriver()
        _ = await driver.send("add /")
        #expect(await driver.send("delete 0:2\ndeleteid 5") == "OK\nOK\n")
        #expect(await uris(&driver) == ["Bach/Goldberg/01 Aria.flac", "Satie/Gymnopédie No. 1.ogg"])
        #expect(await driver.send("move 0 1") == "OK\n")
        #expect(await uris(&driver) == ["Satie/Gymnopédie No. 1.ogg", "Bach/Goldberg/01 Aria.flac"])
        #expect(await driver.send("moveid 3 0") == "OK\n")
        #expect(await uris(&driver).first == "Bach/Goldberg/01 Aria.flac")
        #expect(await driver.send("delete 7") == "ACK [2@0] {delete} Bad song index\n")
        #expect(await driver.send("delete 1:0") == "ACK [2@0] {delete} Malformed range: 1:0\n")
        #expect(await driver.send("deleteid 99") == "ACK [50@0] {deleteid} No such song\n")
        #expect(await driver.send("shuffle\nclear\nplaylistinfo") == "OK\nOK\nOK\n")
    }

    @Test func playlistinfoAndPlaylistidSelect() async {
        var driver = SessionDriver()
        _ = await driver.send("add /\ntagtypes clear")
        let one = await driver.send("playlistinfo 1")
        #expect(one.hasPrefix("file: Bach/Cello Suites/02 Allemande.flac\n") && one.hasSuffix("Pos: 1\nId: 2\nOK\n"))
        #expect(await driver.send("playlistinfo 3:").components("file: ") == 2)
        #expect(await driver.send("playlistinfo -1").components("file: ") == 5)
        #expect(await driver.send("playlistinfo 9") == "ACK [2@0] {playlistinfo} Bad song index\n")
        #expect(await driver.send("playlistid 5").hasPrefix("file: loose.wav\n"))
        #expect(await driver.send("playlistid 50") == "ACK [50@0] {playlistid} No such song\n")
    }

    @Test func plchangesFollowsTheQueueVersion() async {
        var driver = SessionDriver()
        _ = await driver.send("add Bach")
        #expect(await driver.send("status").contains("playlist: 2\n"))
        #expect(await driver.send("plchangesposid 2") == "OK\n")
        _ = await driver.send("add loose.wav")
        #expect(await driver.send("plchangesposid 2") == "cpos: 3\nId: 4\nOK\n")
        _ = await driver.send("move 3 0")
        #expect(
            await driver.send("plchangesposid 3")
                == "cpos: 0\nId: 4\ncpos: 1\nId: 1\ncpos: 2\nId: 2\ncpos: 3\nId: 3\nOK\n")
        #expect(await driver.send("plchanges 0 0:1").components("file: ") == 1)
        #expect(await driver.send("plchanges x") == "ACK [2@0] {plchanges} Integer expected: x\n")
    }

    /// MPD's `ParseCommandArgU32` is `strtoul`: `-1` is 4294967295, newer than any queue version, and a version newer
    /// than the queue's reports the whole queue (issue 16: Fermata refused `plchanges -1`).
    @Test func plchangesMinusOneListsTheWholeQueue() async {
        var driver = SessionDriver()
        _ = await driver.send("add /")
        #expect(await driver.send("plchanges -1").components("file: ") == 5)
        #expect(await driver.send("plchangesposid -1 3:") == "cpos: 3\nId: 4\ncpos: 4\nId: 5\nOK\n")
        #expect(await driver.send("plchangesposid 4294967295 0:1") == "cpos: 0\nId: 1\nOK\n")
        #expect(await driver.send("plchanges -") == "ACK [2@0] {plchanges} Integer expected: -\n")
    }

    /// MPD refuses a `move` range without an end (`-1` is everything); Fermata used to move it (issue 16).
    @Test func moveOfAnOpenEndedRangeIsRefused() async {
        var driver = SessionDriver()
        _ = await driver.send("add /")
        #expect(await driver.send("move -1 0") == "ACK [2@0] {move} Open-ended range not supported\n")
        #expect(await driver.send("move 2: 0") == "ACK [2@0] {move} Open-ended range not supported\n")
        #expect(await driver.send("status").contains("playlist: 2\n"), "the queue did not change")
        #expect(await driver.send("move 3:5 0") == "OK\n")
    }

    @Test func playlistfindIsExactAndPlaylistsearchIsFolded() async {
        var driver = SessionDriver()
        _ = await driver.send("add /\ntagtypes clear")
        let found = await driver.send("playlistfind artist \"Erik Satie\"")
        #expect(found.hasPrefix("file: Satie/Gymnopédie No. 1.ogg\n") && found.hasSuffix("Pos: 3\nId: 4\nOK\n"))
        #expect(found.components("file: ") == 1)
        #expect(await driver.send("playlistfind artist \"erik satie\"") == "OK\n")
        #expect(await driver.send("playlistsearch title gymno").components("file: ") == 1)
        #expect(await driver.send("playlistsearch \"(album contains 'suites')\"").components("file: ") == 2)
    }
}

extension String {
    /// How many times `needle` occurs.
    func components(_ needle: String) -> Int { split(separator: needle, omittingEmptySubsequences: false).count - 1 }
}

/// A command list's run of `add`s goes to the backend in one call (`appendEach`) but answers exactly as if the lines
/// ran one by one: `list_OK` per added line, the first refusal's ACK with its own index, nothing after it.
@Suite struct AppendRunTests {
    @Test func aRunOfAddsAnswersLineByLineAndStopsAtTheFirstFailure() async {
        var driver = SessionDriver()
        let list = [
            "command_list_ok_begin", "add loose.wav", "add Bach", "add nosuch", "add \"Satie/Gymnopédie No. 1.ogg\"",
            "command_list_end",
        ].joined(separator: "\n")
        #expect(await driver.send(list) == "list_OK\nlist_OK\nACK [50@2] {add} No such directory\n")
        let queue = await QueueCommandTests().uris(&driver)
        #expect(queue.count == 4 && queue.first == "loose.wav", "loose.wav and Bach's three, not Satie: \(queue)")
    }

    @Test func aBadURIInTheRunKeepsItsOwnAnswer() async {
        var driver = SessionDriver()
        let list = ["command_list_begin", "add loose.wav", "add loose.wav", "add ../etc", "add loose.wav",
                    "command_list_end"].joined(separator: "\n")
        #expect(await driver.send(list) == "ACK [50@2] {add} No such directory\n")
        #expect(await QueueCommandTests().uris(&driver) == ["loose.wav", "loose.wav"])
        let fine = ["command_list_begin"] + Array(repeating: "add loose.wav", count: 50) + ["command_list_end"]
        #expect(await driver.send(fine.joined(separator: "\n")) == "OK\n")
        #expect(await QueueCommandTests().uris(&driver).count == 52)
    }
}
