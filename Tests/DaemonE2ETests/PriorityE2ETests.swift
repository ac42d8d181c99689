import Foundation
import TestSupport
import Testing

/// MPD's queue priorities (`prio`, `prioid`: ncmpcpp's "add with priority"), random order and consume as MPD 0.23
/// plays them, through python-mpd2 against the real `fermatad`. The same script passes against MPD 0.23 itself
/// (`Tests/Tools/mpd-differential.py` runs the longer comparison).
@Suite(.serialized, .timeLimit(.minutes(10)))
struct PriorityE2ETests {
    /// After `PythonMPDTests.helpers`.
    static let script = #"""
        ONE, TWO = "Alpha Band/First Album/01 One.flac", "Alpha Band/First Album/02 Two.flac"
        UNO, DOS, TRES = "Beta/Second/01 Uno.flac", "Beta/Second/02 Dos.flac", "Beta/Second/03 Tres.flac"

        def prios(c):
            return [int(s.get("prio", "0")) for s in c.playlistinfo()]

        c = client()
        c.clear()
        ids = [c.addid(f) for f in (ONE, TWO, UNO, DOS, TRES)]

        step = "prio and prioid"
        c.prioid(200, ids[4])
        c.prio(100, "1:3")
        check(prios(c) == [0, 100, 100, 0, 200], prios(c))
        c.prio(0, "3")  # already 0: nothing changes, no error
        check(prios(c) == [0, 100, 100, 0, 200], prios(c))

        step = "refusals"
        check(ack(c.prio, 256, "0") == "[2@0] {prio} Number too large: 256", ack(c.prio, 256, "0"))
        check(ack(c.prio, -1, "0") == "[2@0] {prio} Number too large: -1", ack(c.prio, -1, "0"))
        check(ack(c.prioid, 5, 9999) == "[50@0] {prioid} No such song", ack(c.prioid, 5, 9999))
        check(ack(c.prio, 5, "9:") == "[2@0] {prio} Bad song index", ack(c.prio, 5, "9:"))
        check(prios(c) == [0, 100, 100, 0, 200], "a refused prio changes nothing: %s" % prios(c))

        step = "random plays the highest priority first"
        c.single(1)      # each song waits for the test: it stops (MPD: pauses) at the end instead of moving on
        c.random(1)
        c.play(0)        # the chosen song plays first...
        c.pause(1)
        check(c.status()["song"] == "0", c.status())
        c.next()         # ...then priority 200, then the two of priority 100, then the rest
        check(c.status()["song"] == "4", c.status())
        check(prios(c) == [0, 100, 100, 0, 0], "a song that starts loses its priority: %s" % prios(c))
        c.pause(1)
        c.next()
        check(c.status()["song"] in ("1", "2"), c.status())
        c.pause(1)
        c.next()
        check(c.status()["song"] in ("1", "2"), c.status())
        check(prios(c) == [0, 0, 0, 0, 0], prios(c))

        step = "consume removes the song next skips"
        c.pause(1)
        current = c.currentsong()["file"]
        c.consume(1)
        c.next()
        files = [s["file"] for s in c.playlistinfo()]
        check(current not in files and len(files) == 4, files)
        c.consume(0)
        c.stop()
        c.disconnect()
        print("PASS priorities")
        """#

    @Test(.enabled(if: PythonMPDTests.hasPythonMPD, "needs /usr/bin/python3 with python3-mpd"))
    func prioritiesRandomAndConsumeAsMPDPlaysThem() async throws {
        try await Daemon.with { daemon async throws in
            try await PythonMPDTests.run(Self.script, port: daemon.port, expecting: "PASS priorities")
        }
    }
}
