import MPDProtocol
import MPDTestSupport
import Testing

@Suite struct SessionTests {
    @Test func greetingNamesTheProtocolVersion() {
        #expect(String(decoding: ConnectionSession.greeting, as: UTF8.self) == "OK MPD 0.24.0\n")
    }

    @Test func singleCommandAnswersOK() async {
        var driver = SessionDriver()
        #expect(await driver.send("ping") == "OK\n")
        #expect(await driver.send("getvol") == "volume: 100\nOK\n")
    }

    @Test func commandListRunsAllAndAnswersOneOK() async {
        var driver = SessionDriver()
        #expect(
            await driver.send("command_list_begin\nsetvol 40\nping\ngetvol\ncommand_list_end") == "volume: 40\nOK\n")
    }

    @Test func commandListOKMarksEachCommand() async {
        var driver = SessionDriver()
        let output = await driver.send("command_list_ok_begin\nping\ngetvol\ncommand_list_end")
        #expect(output == "list_OK\nvolume: 100\nlist_OK\nOK\n")
    }

    @Test func commandListStopsAtTheFirstErrorWithItsIndex() async {
        var driver = SessionDriver()
        let output = await driver.send(
            "command_list_ok_begin\nsetvol 10\nping\nplayid 999\nsetvol 90\ncommand_list_end")
        #expect(output == "list_OK\nlist_OK\nACK [50@2] {playid} No such song\n")
        #expect(await driver.send("getvol") == "volume: 10\nOK\n")
    }

    @Test func unknownCommandInAListReportsItsIndexAndEmptyCommand() async {
        var driver = SessionDriver()
        let output = await driver.send("command_list_begin\nping\nbogus 1\ncommand_list_end")
        #expect(output == "ACK [5@1] {} unknown command \"bogus\"\n")
    }

    @Test func argumentErrorsUseMPDsWording() async {
        var driver = SessionDriver()
        #expect(await driver.send("play 1 2") == "ACK [2@0] {play} too many arguments for \"play\"\n")
        #expect(await driver.send("seek 1") == "ACK [2@0] {seek} wrong number of arguments for \"seek\"\n")
        #expect(await driver.send("find") == "ACK [2@0] {find} too few arguments for \"find\"\n")
        #expect(await driver.send("setvol x") == "ACK [2@0] {setvol} Integer expected: x\n")
        #expect(await driver.send("repeat 2") == "ACK [2@0] {repeat} Boolean (0/1) expected: 2\n")
        #expect(await driver.send("find \"open") == "ACK [5@0] {} Missing closing '\"'\n")
        #expect(await driver.send("ping") == "OK\n")
    }

    @Test func malformedCommandNamesCloseTheConnection() async {
        var driver = SessionDriver()
        #expect(await driver.send("sta-tus") == "ACK [5@0] {} Invalid word character\n")
        #expect(driver.closed)
        var other = SessionDriver()
        #expect(await other.send("") == "ACK [5@0] {} No command given\n")
        #expect(other.closed)
        var binary = SessionDriver()
        #expect(await binary.sendLine(bytes: [0xFF, 0x00, 0x13]).hasPrefix("ACK [5@0] {} "))
        #expect(binary.closed)
    }

    @Test func closeEndsWithoutAnswer() async {
        var driver = SessionDriver()
        #expect(await driver.send("close") == "")
        #expect(driver.closed)
    }

    @Test func idleWaitsThenReportsChangesOnce() async {
        var driver = SessionDriver()
        #expect(await driver.send("idle") == "")
        #expect(driver.session.isIdle)
        #expect(driver.notify([.player, .mixer]) == "changed: player\nchanged: mixer\nOK\n")
        #expect(!driver.session.isIdle)
        #expect(driver.notify(.player) == "")
    }

    @Test func changesBetweenIdlesAreKeptForTheNextIdle() async {
        var driver = SessionDriver()
        _ = driver.notify(.playlist)
        _ = driver.notify(.options)
        #expect(await driver.send("idle playlist") == "changed: playlist\nOK\n")
        // MPD 0.24: the idle that reported `playlist` left `options` pending.
        #expect(await driver.send("idle options") == "changed: options\nOK\n")
        #expect(await driver.send("idle options") == "")
        #expect(driver.notify(.playlist) == "")
        #expect(driver.notify(.options) == "changed: options\nOK\n")
    }

    @Test func idleReportsOnlySubscribedSubsystems() async {
        var driver = SessionDriver()
        #expect(await driver.send("idle mixer stored_playlist") == "")
        #expect(driver.notify(.player) == "")
        #expect(driver.notify(.storedPlaylist) == "changed: stored_playlist\nOK\n")
    }

    @Test func noidleEndsIdleWithOKAndIsIgnoredOtherwise() async {
        var driver = SessionDriver()
        #expect(await driver.send("noidle") == "")
        #expect(await driver.send("idle\nnoidle") == "OK\n")
        #expect(await driver.send("ping") == "OK\n")
    }

    @Test func anyOtherCommandDuringIdleClosesTheConnection() async {
        var driver = SessionDriver()
        #expect(await driver.send("idle\nstatus") == "")
        #expect(driver.closed)
    }

    @Test func idleRejectsUnknownSubsystemsAndCommandLists() async {
        var driver = SessionDriver()
        #expect(await driver.send("idle bogus") == "ACK [2@0] {idle} Unrecognized idle event: bogus\n")
        #expect(
            await driver.send("command_list_begin\nidle player\ncommand_list_end")
                == "ACK [2@0] {idle} idle is not possible in a command list\n")
        #expect(await driver.send("command_list_begin\nidle") == "ACK [5@0] {} Not possible in a command list\n")
        #expect(driver.closed)
    }

    @Test func commandListTooLongClosesTheConnection() async {
        var driver = SessionDriver(config: SessionConfig(maxCommandListBytes: 1_000))
        var text = "command_list_begin"
        for _ in 0..<100 { text += "\nping" }
        #expect(await driver.send(text) == "ACK [5@0] {} Command list too long\n")
        #expect(driver.closed)
    }

    @Test func tenThousandIdleNoidleCyclesStayInSync() async {
        var driver = SessionDriver()
        for cycle in 0..<10_000 {
            let output = await driver.send(cycle % 100 == 0 ? "idle\nnoidle\nping" : "idle\nnoidle")
            #expect(output == (cycle % 100 == 0 ? "OK\nOK\n" : "OK\n"))
        }
        #expect(driver.backend.idle.subscriberCount == 1)
    }
}
