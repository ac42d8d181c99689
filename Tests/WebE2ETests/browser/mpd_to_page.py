#!/usr/bin/env python3
"""Scenario b: what an MPD client does shows on the open page, pushed by server-sent events (the page never polls):
`pause`, `setvol 40`, `loop_set 1 2`, then `play` and `loop_clear`, each asserted from the DOM with a wait that ends
when the page shows it (its time is reported).

Settings: base, mpd_port, stall, album.
"""
import time

from common import MPD, browser, eventually, js, main, page_ready, quote, text, visible, wait_for


def run(s, report):
    mpd = MPD(s.mpd_port)
    mpd.ok("clear")
    mpd.ok("add " + quote(s.album))
    mpd.ok("repeat 1")
    mpd.ok("setvol 80")
    mpd.ok("play 0")
    stall = s.stall

    d = browser(390, 844, "light")
    d.get(s.base + "#stand")
    page_ready(d, stall)
    eventually(report, "the page shows the track playing",
               lambda: js(d, "return document.getElementById('b-play').classList.contains('on')"), stall)
    # three seconds in, so that the loop set below lies behind the position
    wait_for(lambda: float(mpd.ok("status").get("elapsed", "0")) >= 3.0, "3 s of playing", stall)
    requests_before = len(js(d, "return window.__api"))

    def after(command, name, condition, detail=lambda: ""):
        start = time.monotonic()
        mpd.ok(command)
        ok = eventually(report, name, condition, stall, detail)
        report.time(command + " -> page", time.monotonic() - start)
        return ok

    after("pause", "pause: the play button shows Play",
          lambda: js(d, "var b = document.getElementById('b-play'); return !b.classList.contains('on') "
                        "&& b.getAttribute('aria-label') === 'Play'"),
          lambda: js(d, "return document.getElementById('b-play').outerHTML.slice(0, 120)"))
    after("setvol 40", "setvol 40: the page shows volume 40", lambda: text(d, "#s-vol b") == "40",
          lambda: text(d, "#s-vol b"))
    after("loop_set 1 2", "loop_set 1 2: the page shows the loop 0:01.0 – 0:02.0",
          lambda: text(d, "#s-loop") == "0:01.0 – 0:02.0" and visible(d, "#b-reg")
          and (text(d, "#s-sec") or "").startswith("Loop"),
          lambda: (text(d, "#s-loop"), text(d, "#s-sec")))
    width = js(d, "return document.getElementById('b-reg').style.width")
    report.check("loop_set 1 2: the loop is drawn on the bar at its place",
                 js(d, "var r = document.getElementById('b-reg').style; "
                       "return Math.abs(parseFloat(r.left) - 0.5) < 0.01 && Math.abs(parseFloat(r.width) - 0.5) < 0.01"),
                 (js(d, "return document.getElementById('b-reg').style.left"), width))
    after("play", "play: the play button shows Pause",
          lambda: js(d, "return document.getElementById('b-play').classList.contains('on')"))
    # the position the page shows goes round the loop as the box plays it
    def position():
        t = (text(d, "#s-el") or "9:99").split(":")
        return int(t[0]) * 60 + int(t[1])
    def inside():
        for _ in range(6):
            if not 1 <= position() <= 2:
                return False
            time.sleep(0.3)
        return True
    eventually(report, "play: the position shown stays within the loop 1-2 s (set behind where the track was)", inside,
               stall, lambda: (text(d, "#s-el"), mpd.ok("status").get("elapsed")))
    after("loop_clear", "loop_clear: the page hides the loop", lambda: not visible(d, "#b-reg") and not text(d, "#s-loop"))

    # Pushed, not polled: the page asked for nothing while it followed those changes.
    asked = [x["url"] for x in js(d, "return window.__api")[requests_before:]]
    report.check("no request from the page while it followed MPD's changes (server-sent events only)", not asked, asked)
    mpd.close()


if __name__ == "__main__":
    main("mpd-to-page", run)
