import FermataCore
import MPDProtocol
import MPDTestSupport
import Testing

@Suite struct ConnectionCommandTests {
    let config = SessionConfig(passwords: ["reader": [.read], "boss": .all], defaultPermissions: [])

    @Test func defaultPermissionsApplyUntilAPasswordIsGiven() async {
        var driver = SessionDriver(config: config)
        #expect(await driver.send("status") == "ACK [4@0] {status} you don't have permission for \"status\"\n")
        #expect(await driver.send("ping") == "OK\n")
        #expect(await driver.send("password wrong") == "ACK [3@0] {password} incorrect password\n")
        #expect(await driver.send("password reader") == "OK\n")
        #expect(await driver.send("status").hasSuffix("OK\n"))
        #expect(await driver.send("play") == "ACK [4@0] {play} you don't have permission for \"play\"\n")
        #expect(await driver.send("password boss\nplay") == "OK\nOK\n")
    }

    @Test func mpdDefaultIsAllPermissions() async {
        var driver = SessionDriver()
        #expect(await driver.send("sticker list song loose.wav") == "OK\n")
    }

    @Test func permissionIsCheckedBeforeArgumentCount() async {
        var driver = SessionDriver(config: config)
        #expect(await driver.send("play 1 2 3") == "ACK [4@0] {play} you don't have permission for \"play\"\n")
    }

    @Test func permissionListsParseLikeMPDsConfig() {
        #expect(Permission(list: "read,add, control") == [.read, .add, .control])
        #expect(Permission(list: "read,bogus") == nil)
        #expect(Permission.all.description == "read,add,control,admin")
    }

    @Test func tagtypesListsAndChangesPerConnection() async {
        var driver = SessionDriver()
        let all = await driver.send("tagtypes")
        #expect(all.hasPrefix("tagtype: Artist\ntagtype: ArtistSort\ntagtype: Album\n"))
        #expect(all.split(separator: "\n").count == TagType.allCases.count + 1)
        #expect(
            await driver.send("tagtypes clear\ntagtypes enable title ALBUM\ntagtypes")
                == "OK\nOK\ntagtype: Album\ntagtype: Title\nOK\n")
        #expect(await driver.send("playlistinfo") == "OK\n")
        _ = await driver.send("add loose.wav")
        #expect(
            await driver.send("playlistinfo") == """
                file: loose.wav
                Last-Modified: 2023-11-14T22:46:44Z
                Format: 44100:16:1
                Album: Singles
                Title: Loose
                Time: 10
                duration: 10.000
                Pos: 0
                Id: 1
                OK

                """)
        #expect(await driver.send("tagtypes disable Album\ntagtypes") == "OK\ntagtype: Title\nOK\n")
        #expect(await driver.send("tagtypes all\ntagtypes").split(separator: "\n").count == TagType.allCases.count + 2)
        #expect(await driver.send("tagtypes enable Bogus") == "ACK [2@0] {tagtypes} Unknown tag type\n")
        #expect(await driver.send("tagtypes frobnicate") == "ACK [2@0] {tagtypes} Unknown sub command\n")
        var other = SessionDriver(backend: driver.backend)
        #expect(await other.send("tagtypes").split(separator: "\n").count == TagType.allCases.count + 1)
    }

    @Test func binarylimitHasMPDsBounds() async {
        var driver = SessionDriver()
        #expect(await driver.send("binarylimit 63") == "ACK [2@0] {binarylimit} Value too small\n")
        #expect(await driver.send("binarylimit 64") == "OK\n")
        #expect(await driver.send("binarylimit 99999999").hasPrefix("ACK [2@0] {binarylimit} Number too large"))
        #expect(driver.session.client.binaryLimit == 64)
    }

    @Test func staticLists() async {
        var driver = SessionDriver()
        #expect(await driver.send("urlhandlers") == "OK\n")
        let decoders = await driver.send("decoders")
        #expect(
            decoders.hasPrefix(
                "plugin: flac\nsuffix: flac\nmime_type: audio/flac\nmime_type: audio/x-flac\nplugin: vorbis\n"))
    }
}
