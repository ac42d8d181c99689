import MPDProtocol
import MPDTestSupport
import Testing

@Suite struct CommandTableTests {
    @Test func tableIsSortedAndUnique() {
        let names = CommandTable.commands.map(\.name)
        for (a, b) in zip(names, names.dropFirst()) {
            #expect(a.utf8.lexicographicallyPrecedes(b.utf8), "\(a) must sort before \(b)")
        }
        #expect(Set(names).count == names.count)
    }

    @Test func everyCommandIsFoundByBinarySearch() {
        for spec in CommandTable.commands { #expect(CommandTable.lookup(spec.name)?.name == spec.name) }
        #expect(CommandTable.lookup("nosuch") == nil)
        #expect(CommandTable.lookup("") == nil)
        #expect(CommandTable.lookup("STATUS") == nil)
    }

    @Test func argumentRangesAreSane() {
        for spec in CommandTable.commands {
            #expect(spec.minArguments >= 0)
            if let max = spec.maxArguments { #expect(max >= spec.minArguments, "\(spec.name)") }
        }
    }

    /// The minimum command list (plus Fermata's loop commands and MPD 0.24's additions) is all there.
    @Test func requiredCommandsExist() {
        let required = """
            status currentsong stats play playid pause stop next previous seek seekid seekcur setvol volume
            getvol repeat random single consume crossfade replay_gain_mode replay_gain_status add addid delete
            deleteid move moveid clear shuffle playlistinfo playlistid plchanges plchangesposid playlistfind
            playlistsearch update rescan find search findadd searchadd list count lsinfo listall listallinfo
            listfiles listplaylists listplaylist listplaylistinfo load save rm rename playlistadd playlistclear
            playlistdelete playlistmove outputs enableoutput disableoutput toggleoutput commands notcommands
            tagtypes urlhandlers decoders ping close password binarylimit sticker albumart readpicture idle
            loop_a loop_b loop_clear loop_nudge
            playlistlength searchcount searchplaylist protocol stickernames stickertypes stickernamestypes
            swap swapid
            """
        for name in required.split(whereSeparator: \.isWhitespace) {
            #expect(CommandTable.lookup(String(name)) != nil, "missing \(name)")
        }
    }

    @Test func fermataCommandsDoNotCollideWithMPDNames() {
        let mpdNames: Set<String> = ["loop", "tempo", "practice"]
        for spec in CommandTable.commands where spec.name.hasPrefix("loop") { #expect(!mpdNames.contains(spec.name)) }
    }

    @Test func commandsListsWhatThePermissionsAllowAndNotcommandsTheRest() async {
        var driver = SessionDriver(config: SessionConfig(passwords: ["pw": .all], defaultPermissions: [.read]))
        let allowed = await driver.send("commands")
        let refused = await driver.send("notcommands")
        #expect(allowed.contains("command: status\n") && allowed.contains("command: password\n"))
        #expect(!allowed.contains("command: play\n") && refused.contains("command: play\n"))
        #expect(refused.contains("command: sticker\n") && refused.contains("command: add\n"))
        let total = (allowed + refused).split(separator: "\n").filter { $0.hasPrefix("command: ") }.count
        #expect(total == CommandTable.commands.count)
        _ = await driver.send("password pw")
        #expect(await driver.send("notcommands") == "OK\n")
    }
}
