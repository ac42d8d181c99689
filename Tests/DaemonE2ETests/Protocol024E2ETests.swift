import Foundation
import TestSupport
import Testing

/// MPD 0.24's additions against the real fermatad through python-mpd2 (3.0 has no verbs for them: they are added as
/// raw commands with its own parsers): the greeting, `playlistlength`, `searchcount`, `searchplaylist`, `protocol`,
/// `tagtypes available`/`reset`, `playlistmove` ranges, `listplaylist` windows, `save` modes, the `Added` attribute and
/// `added-since`, `sticker inc`/`dec`, `stickernames`/`stickertypes`/`stickernamestypes` and `sticker find` with
/// sort and window. The script prints the step it failed at, or a final PASS line.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct Protocol024E2ETests {
    /// After `PythonMPDTests.helpers`.
    static let script = #"""
        ONE, TWO = "Alpha Band/First Album/01 One.flac", "Alpha Band/First Album/02 Two.flac"
        UNO, DOS, TRES = "Beta/Second/01 Uno.flac", "Beta/Second/02 Dos.flac", "Beta/Second/03 Tres.flac"
        C = mpd.MPDClient
        for name, parser in [("playlistlength", C._parse_object), ("searchcount", C._parse_objects),
                             ("searchplaylist", C._parse_songs), ("protocol", C._parse_list),
                             ("protocol available", C._parse_list), ("protocol enable", C._parse_nothing),
                             ("tagtypes available", C._parse_list), ("tagtypes reset", C._parse_nothing),
                             ("stickernames", C._parse_list), ("stickertypes", C._parse_list),
                             ("stickernamestypes", C._parse_objects), ("sticker inc", C._parse_nothing),
                             ("sticker dec", C._parse_nothing)]:
            if not hasattr(parser, "mpd_commands_binary"):
                parser.mpd_commands_binary = False  # set only on parsers python-mpd2 registers itself
            C.add_command(name, parser)
        step = "connect"
        c = mpd.MPDClient()
        c.timeout = 120  # a stall of the connection: only a hang detector (Patience.stallSeconds)
        c.connect("127.0.0.1", port)
        check(c.mpd_version == "0.24.0", c.mpd_version)

        step = "stored playlists"
        for song in [ONE, TWO, UNO, DOS, TRES]:
            c.add(song)
        c.save("all")
        check(c.playlistlength("all") == {"songs": "5", "playtime": "7"}, c.playlistlength("all"))  # 7.0 s
        check(ack(c.save, "all") == "[56@0] {save} Playlist already exists", ack(c.save, "all"))
        c.save("all", "append")
        check(c.playlistlength("all")["songs"] == "10", c.playlistlength("all"))
        c.save("all", "replace")
        check(ack(c.save, "none", "append") == "[50@0] {save} No such playlist", ack(c.save, "none", "append"))
        check(c.listplaylist("all", "1:3") == [TWO, UNO], c.listplaylist("all", "1:3"))
        c.playlistmove("all", "2:4", "0")
        check(c.listplaylist("all") == [UNO, DOS, ONE, TWO, TRES], c.listplaylist("all"))
        check(ack(c.playlistmove, "all", "3:", "0") == "[2@0] {playlistmove} Open-ended range not supported",
              ack(c.playlistmove, "all", "3:", "0"))
        check(ack(c.playlistmove, "all", "4:9", "0") == "[2@0] {playlistmove} Bad range", "playlistmove 4:9")
        found = c.searchplaylist("all", "(title contains 'O')", "window", "1:3")
        check([(s["file"], s["pos"]) for s in found] == [(DOS, "1"), (ONE, "2")], found)
        check([s["title"] for s in c.listplaylistinfo("all", "4:")] == ["Tres"], c.listplaylistinfo("all", "4:"))

        step = "playlistfind"
        c.clear()
        for song in [ONE, TWO, UNO, DOS, TRES]:
            c.add(song)
        by_title = c.playlistsearch("title", "O", "sort", "-Title", "window", "0:3")  # One, Two, Uno, Dos
        check([(s["title"], s["pos"]) for s in by_title] == [("Uno", "2"), ("Two", "1"), ("One", "0")], by_title)
        check([s["title"] for s in c.playlistfind("artist", "Beta", "window", "1:")] == ["Dos", "Tres"], "window")

        step = "searchcount"
        check(c.count("artist", "beta") == {"songs": "0", "playtime": "0"}, c.count("artist", "beta"))
        counted = list(c.searchcount("artist", "beta"))
        check(counted == [{"songs": "3", "playtime": "4"}], counted)  # 4.5 s, whole seconds as count

        step = "added"
        added = c.lsinfo(UNO)[0].get("added", "")
        check(len(added) == 20 and added.endswith("Z"), c.lsinfo(UNO))
        check(len(c.find("(added-since '2000-01-01')")) == 5, c.find("(added-since '2000-01-01')"))
        check(c.find("(added-since '2100-01-01')") == [], "nothing was added in the future")

        step = "protocol"
        check(c.protocol() == [], c.protocol())
        check(c.protocol_available() == ["hide_playlists_in_root"], c.protocol_available())
        check("all" in [e.get("playlist") for e in c.lsinfo()], c.lsinfo())
        c.protocol_enable("hide_playlists_in_root")
        check(c.protocol() == ["hide_playlists_in_root"], c.protocol())
        check("all" not in [e.get("playlist") for e in c.lsinfo()], c.lsinfo())

        step = "tagtypes"
        check("Title" in c.tagtypes_available() and "Artist" in c.tagtypes_available(), c.tagtypes_available())
        c.tagtypes_reset("Title")
        check(c.tagtypes() == ["Title"], c.tagtypes())
        check("artist" not in c.lsinfo(UNO)[0] and c.lsinfo(UNO)[0]["title"] == "Uno", c.lsinfo(UNO))

        step = "stickers"
        c.sticker_inc("song", UNO, "plays", "2")
        c.sticker_inc("song", UNO, "plays", "3")
        c.sticker_dec("song", UNO, "plays", "1")
        check(c.sticker_get("song", UNO, "plays") == "4", c.sticker_get("song", UNO, "plays"))
        # Saturating at the ends of 64 bits (inc on the largest value wrapped to the smallest).
        c.sticker_set("song", UNO, "big", "9223372036854775807")
        c.sticker_inc("song", UNO, "big", "1")
        check(c.sticker_get("song", UNO, "big") == "9223372036854775807", c.sticker_get("song", UNO, "big"))
        c.sticker_set("song", UNO, "big", "-9223372036854775808")
        c.sticker_dec("song", UNO, "big", "1")
        check(c.sticker_get("song", UNO, "big") == "-9223372036854775808", c.sticker_get("song", UNO, "big"))
        c.sticker_delete("song", UNO, "big")
        c.sticker_set("song", DOS, "plays", "10")
        c.sticker_set("song", DOS, "mood", "Calm")
        check(c.stickernames() == ["mood", "plays"], c.stickernames())
        check(c.stickertypes() == ["song"], c.stickertypes())
        names_types = list(c.stickernamestypes())
        # python-mpd2 gathers repeated keys of one object: name/type pairs come back as two lists.
        check(names_types == [{"name": ["mood", "plays"], "type": ["song", "song"]}], names_types)
        by_int = list(c.sticker_find("song", "", "plays", "sort", "-value_int"))
        check([f["file"] for f in by_int] == [DOS, UNO], by_int)
        by_string = list(c.sticker_find("song", "", "plays", "<", "5", "sort", "value", "window", "0:1"))
        check([(f["file"], f["sticker"]) for f in by_string] == [(DOS, "plays=10")], by_string)
        check([f["file"] for f in list(c.sticker_find("song", "", "mood", "contains", "alm"))] == [DOS], "contains")
        check(ack(c.sticker_get, "song", UNO, "nope") == '[50@0] {sticker} no such sticker: "nope"', "get")

        step = "consume"
        c.consume("oneshot")
        check(c.status()["consume"] == "oneshot", c.status())
        c.consume(0)
        check(c.status()["consume"] == "0", c.status())
        check(ack(c.consume, "2") == "[2@0] {consume} Unrecognized consume mode, expected 0, 1, or oneshot", "consume 2")

        c.disconnect()
        print("PASS python-mpd2 0.24")
        """#

    @Test(.enabled(if: PythonMPDTests.hasPythonMPD, "needs /usr/bin/python3 with python3-mpd"))
    func protocol024Commands() async throws {
        try await Daemon.with { daemon async throws in
            try await PythonMPDTests.run(Self.script, port: daemon.port, expecting: "PASS python-mpd2 0.24")
        }
    }
}
