import Foundation
import TestSupport
import Testing

/// python-mpd2 (Debian `python3-mpd`, run by /usr/bin/python3) against the real `fermatad`: `idle` woken by another
/// client, command lists with a failing command, binary responses (`albumart`, `readpicture`), error ACKs,
/// `plchanges` and stickers. The script prints the step it failed at, or a final PASS line.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct PythonMPDTests {
    static var hasPythonMPD: Bool {
        (try? Programs.run(Programs.python, ["-c", "import mpd"]).status) == 0
    }

    /// What the python-mpd2 scripts of other suites start with: the port from `argv[1]`, `check` (prints the step it
    /// failed at and exits 1), `ack` (an ACK's text, or None) and `client()` (a connected client).
    static let helpers = #"""
        import mpd, sys, threading, time
        port = int(sys.argv[1])
        step = "connect"

        def check(condition, what):
            if not condition:
                print("FAIL at %s: %s" % (step, what))
                sys.exit(1)

        def ack(call, *args):
            try:
                call(*args)
            except mpd.CommandError as e:
                return str(e)
            return None

        def client():
            c = mpd.MPDClient()
            c.timeout = 120      # a stall of the connection: only a hang detector (Patience.stallSeconds)
            c.idletimeout = 120
            c.connect("127.0.0.1", port)
            return c

        """#

    /// Runs `helpers` + `body` against the daemon on `port`; expects exit 0 and the last line `pass`. The script's
    /// own waits are stall bounds (`Patience.stallSeconds`); the run as a whole is bounded by `Patience.ceiling`, a
    /// hang detector above them (a script of many commands takes as long as the machine's load makes it).
    static func run(_ body: String, port: Int, expecting pass: String) async throws {
        let arguments = ["-c", helpers + body, String(port)]
        let result = try await onThread {
            try Programs.run(Programs.python, arguments, timeout: Patience.ceilingSeconds)
        }
        #expect(result.status == 0 && result.output.hasSuffix(pass + "\n"), "\(result)")
    }

    static let script = #"""
        import mpd, sys, threading, time
        port, cover_path = int(sys.argv[1]), sys.argv[2]
        ONE, UNO, DOS = "Alpha Band/First Album/01 One.flac", "Beta/Second/01 Uno.flac", "Beta/Second/02 Dos.flac"
        step = "connect"

        def check(condition, what):
            if not condition:
                print("FAIL at %s: %s" % (step, what))
                sys.exit(1)

        def client():
            c = mpd.MPDClient()
            c.timeout = 120      # a stall of the connection: only a hang detector (Patience.stallSeconds)
            c.idletimeout = 120
            c.connect("127.0.0.1", port)
            return c

        def ack(call, *args):
            try:
                call(*args)
            except mpd.CommandError as e:
                return str(e)
            return None

        c, watcher = client(), client()
        check(c.mpd_version == "0.24.0", c.mpd_version)

        step = "idle"
        seen = set()
        def watch():
            deadline = time.time() + 120  # a hang detector
            while not {"player", "playlist"} <= seen and time.time() < deadline:
                seen.update(watcher.idle("player", "playlist"))
        thread = threading.Thread(target=watch)
        thread.start()
        time.sleep(0.3)  # let the watcher block in idle; events before that are kept for it anyway
        c.setvol(50)     # mixer: not subscribed
        c.add(UNO)       # playlist
        c.play(0)        # player
        c.pause(1)
        thread.join(130)
        check(not thread.is_alive(), "idle never returned")
        check({"player", "playlist"} <= seen and "mixer" not in seen, sorted(seen))
        watcher.disconnect()

        step = "command list"
        c.command_list_ok_begin()
        c.status()
        c.add("Beta/None.flac")
        c.clear()
        error = ack(c.command_list_end)
        check(error == "[50@1] {add} No such directory", error)
        check([s["file"] for s in c.playlistinfo()] == [UNO], "clear after the failing add must not run")
        c.command_list_ok_begin()
        c.ping()
        c.currentsong()
        c.status()
        replies = c.command_list_end()
        check(len(replies) == 3 and replies[1]["file"] == UNO and replies[2]["volume"] == "50", replies)

        step = "albumart"
        cover = open(cover_path, "rb").read()
        art = c.albumart(ONE)  # three chunks at MPD's default 8 KiB binary limit
        check(art["binary"] == cover, "%d bytes, expected %d" % (len(art["binary"]), len(cover)))
        check(ack(c.albumart, UNO) == "[50@0] {albumart} No file exists", ack(c.albumart, UNO))

        step = "readpicture"
        picture = c.readpicture(UNO)
        check(not picture.get("binary"), picture)

        step = "errors"
        check(ack(c.play, 999) == "[2@0] {play} Bad song index", ack(c.play, 999))
        check(ack(c.add, "nosuch") == "[50@0] {add} No such directory", ack(c.add, "nosuch"))
        check(ack(c.playid, 999) == "[50@0] {playid} No such song", ack(c.playid, 999))
        check(c.ping() is None, "the connection survives ACKs")

        step = "plchanges"
        version = int(c.status()["playlist"])
        check(c.plchanges(version) == [], "no change yet")
        c.add(DOS)
        changed = c.plchanges(version)
        check([(s["file"], s["pos"]) for s in changed] == [(DOS, "1")], changed)
        check([(s["cpos"], s["id"]) for s in c.plchangesposid(version)] == [("1", changed[0]["id"])], "plchangesposid")
        c.moveid(changed[0]["id"], 0)
        check([s["file"] for s in c.plchanges(version)] == [DOS, UNO], c.plchanges(version))

        step = "stickers"
        c.sticker_set("song", UNO, "rating", "5")
        c.sticker_set("song", DOS, "rating", "2")
        c.sticker_set("song", UNO, "mood", "calm")
        check(c.sticker_get("song", UNO, "rating") == "5", c.sticker_get("song", UNO, "rating"))
        check(c.sticker_list("song", UNO) == {"mood": "calm", "rating": "5"}, c.sticker_list("song", UNO))
        found = sorted((f["file"], f["sticker"]) for f in c.sticker_find("song", "Beta", "rating"))
        check(found == [(UNO, "rating=5"), (DOS, "rating=2")], found)
        high = c.sticker_find("song", "", "rating", ">", "3")
        check([(f["file"], f["sticker"]) for f in high] == [(UNO, "rating=5")], high)
        c.sticker_delete("song", UNO, "mood")
        check(c.sticker_list("song", UNO) == {"rating": "5"}, c.sticker_list("song", UNO))
        check(ack(c.sticker_get, "song", UNO, "mood") == '[50@0] {sticker} no such sticker: "mood"', "deleted sticker")

        c.stop()
        c.disconnect()
        print("PASS python-mpd2 end to end")
        """#

    @Test(.enabled(if: hasPythonMPD, "needs /usr/bin/python3 with python3-mpd"))
    func pythonMPD2Session() async throws {
        try await Daemon.with { daemon async throws in
            let cover = daemon.music + "/" + MusicFixture.coverAlbum + "/cover.jpg"
            let arguments = ["-c", Self.script, String(daemon.port), cover]
            let result = try await onThread {
                try Programs.run(Programs.python, arguments, timeout: Patience.ceilingSeconds)  // as `run` does
            }
            #expect(result.status == 0, "python-mpd2 script: \(result)")
            #expect(result.output.hasSuffix("PASS python-mpd2 end to end\n"), "\(result)")
        }
    }
}
