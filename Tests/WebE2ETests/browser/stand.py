#!/usr/bin/env python3
"""Scenario a: every control of the music stand, pressed in headless Chromium, and the daemon's state after each read
back over the MPD port (status, loop_status, sections, tempo, metronome; the count-in, which MPD cannot read, from
GET /api/status). Also: the page shows what it did (tempo, key, volume, the pass of a loop), and no console errors.

Settings: base, mpd_port, stall, album (the folder to queue: at least three tracks longer than the test).
"""
import time

from common import MPD, api_json, click, console_errors, eventually, js, main, page_ready, quote, text, \
    visible, wait_for, browser


def run(s, report):
    mpd = MPD(s.mpd_port)
    mpd.ok("clear")
    mpd.ok("add " + quote(s.album))
    mpd.ok("repeat 1")
    mpd.ok("stop")
    stall = s.stall

    def status():
        return mpd.ok("status")

    def loop():
        return mpd.ok("loop_status")

    def sections():
        return mpd.pairs("sections")

    def active():
        return dict(sections()).get("active_section")

    def elapsed():
        return float(status().get("elapsed", "0"))

    started = time.monotonic()
    d = browser(390, 844, "light")
    d.get(s.base + "#stand")
    page_ready(d, stall)
    report.time("page ready", time.monotonic() - started)
    report.check("the stand is shown", visible(d, "#pad") and visible(d, "#b-play"))

    def press(css, name, condition, detail):
        """Presses a control (by CSS), then waits until `condition` holds for the daemon; returns whether it did."""
        wait_for(lambda: js(d, "var b = document.querySelector(arguments[0]); return b && !b.disabled;", css),
                 name + ": the button enabled", stall)
        click(d, css)
        return eventually(report, name, condition, stall, detail)

    # play / pause (the one toggle)
    press("#b-play", "play: MPD state play", lambda: status().get("state") == "play", status)
    eventually(report, "play: the page shows Pause", lambda: js(d, "return document.getElementById('b-play')"
                                                               ".getAttribute('aria-label') === 'Pause'"), stall)
    press("#b-play", "pause: MPD state pause", lambda: status().get("state") == "pause", status)
    eventually(report, "pause: the page shows Play", lambda: js(d, "return document.getElementById('b-play')"
                                                               ".getAttribute('aria-label') === 'Play'"), stall)
    press("#b-play", "play again: MPD state play", lambda: status().get("state") == "play", status)

    # next / previous
    first = status().get("songid")
    press('[data-a="next"]', "next: MPD plays the second entry",
          lambda: status().get("song") == "1" and status().get("state") == "play", status)
    eventually(report, "next: the page shows its title",
               lambda: text(d, "#s-title") == "Étude No. 2 in A major", stall, lambda: text(d, "#s-title"))
    # previous: back to the entry before, or (the button's rule, past 3 s heard) to the start of this one first —
    # a loaded machine may take that long between the two presses, so press until it is back, each press a change
    for attempt in range(3):
        before = status()
        press('[data-a="previous"]', "previous (press %d): a change, back or to the start" % (attempt + 1),
              lambda: status().get("songid") != before.get("songid")
              or float(status().get("elapsed", "0")) < float(before.get("elapsed", "0")) - 0.2, status)
        if status().get("songid") == first:
            break
    report.check("previous: MPD plays the first entry again", status().get("songid") == first, status())

    # loop A, loop B (at least a second of playing between them, as heard)
    wait_for(lambda: elapsed() >= 1.0, "a second of playing", stall)
    press("#b-la", "loop A: MPD loop_status has loop_pending_a", lambda: "loop_pending_a" in loop(), loop)
    eventually(report, "loop A: the page shows A on the bar", lambda: visible(d, "#b-a"), stall)
    a = float(loop().get("loop_pending_a", "0"))
    wait_for(lambda: elapsed() >= a + 1.5, "1.5 s after A", stall)
    press("#b-lb", "loop B: MPD loop_status has the loop",
          lambda: "loop_start" in loop() and "loop_end" in loop() and "loop_pending_a" not in loop(), loop)
    ends = loop()
    report.check("loop B: the loop runs from A to after it",
                 abs(float(ends.get("loop_start", -9)) - a) < 0.05 and float(ends.get("loop_end", 0)) > a + 1, ends)
    eventually(report, "loop B: the page draws the loop", lambda: visible(d, "#b-reg") and text(d, "#s-loop"), stall)

    # section save (from the loop)
    press("#b-ss", "save section: MPD sections has one", lambda: len([k for k, _ in sections() if k == "section"]) == 1,
          sections)

    # clear
    press("#b-lc", "clear: MPD loop_status has no loop", lambda: "loop_start" not in loop(), loop)
    eventually(report, "clear: the page hides the loop", lambda: not visible(d, "#b-reg"), stall)

    # Again! (the last 8 s heard, or as much as was heard)
    wait_for(lambda: elapsed() >= 3.0, "3 s into the track", stall)
    press('[data-a="again"]', "Again!: MPD loop_status has a loop ending where playback was",
          lambda: "loop_start" in loop() and float(loop().get("loop_end", 0)) > float(loop().get("loop_start", 0)),
          loop)
    again = loop()
    length = float(again.get("loop_end", 0)) - float(again.get("loop_start", 0))
    report.check("Again!: at most 8 s long", 0 < length <= 8.05, again)

    # a second section, from the Again! loop; then clear the loop and step through the sections
    press("#b-ss", "save section again: MPD sections has two",
          lambda: len([k for k, _ in sections() if k == "section"]) == 2, sections)
    press("#b-lc", "clear again: no loop", lambda: "loop_start" not in loop(), loop)
    eventually(report, "the page knows the track has two sections",
               lambda: js(d, "return F.S && F.S.sections === 2 && !document.getElementById('b-sn').disabled"), stall)
    press("#b-sn", "section next: MPD active_section set", lambda: active() in ("1", "2"), sections)
    one = active()
    other = "2" if one == "1" else "1"
    press("#b-sn", "section next again: the other section", lambda: active() == other, sections)
    press("#b-sp", "section previous: back to the first one", lambda: active() == one, sections)
    eventually(report, "section: the page shows its name", lambda: (text(d, "#s-sec") or "").startswith("§ section"),
               stall, lambda: text(d, "#s-sec"))
    report.info["section chip"] = text(d, "#s-sec")

    # tempo - / +
    press('[data-a="tempo_by"][data-v="-5"]', "tempo -: MPD tempo 95", lambda: mpd.ok("tempo").get("tempo") == "95",
          lambda: mpd.ok("tempo"))
    eventually(report, "tempo -: the page shows 95%", lambda: text(d, "#s-tempo b") == "95%", stall,
               lambda: text(d, "#s-tempo b"))
    press('[data-a="tempo_by"][data-v="5"]', "tempo +: MPD tempo 100", lambda: mpd.ok("tempo").get("tempo") == "100",
          lambda: mpd.ok("tempo"))

    # transpose - / +
    press('[data-a="transpose_by"][data-v="-1"]', "transpose -: MPD transpose -1",
          lambda: loop().get("transpose") == "-1", loop)
    eventually(report, "transpose -: the page shows −1", lambda: text(d, "#s-key b") == "−1", stall,
               lambda: text(d, "#s-key b"))
    press('[data-a="transpose_by"][data-v="1"]', "transpose +: MPD transpose 0", lambda: loop().get("transpose") == "0",
          loop)

    # volume - / + (the stand's third stepper)
    volume = int(status().get("volume", "0"))
    press('[data-a="volume_by"][data-v="-5"]', "volume -: MPD volume 5 lower",
          lambda: int(status().get("volume", "-1")) == volume - 5, status)
    press('[data-a="volume_by"][data-v="5"]', "volume +: MPD volume back", lambda: int(status().get("volume", "-1")) == volume,
          status)

    # metronome
    press("#b-met", "metronome: MPD metronome on", lambda: mpd.ok("metronome").get("metronome", "off") != "off",
          lambda: mpd.ok("metronome"))
    eventually(report, "metronome: the page shows it pressed",
               lambda: js(d, "return document.getElementById('b-met').getAttribute('aria-pressed') === 'true'"), stall)
    press("#b-met", "metronome again: MPD metronome off", lambda: mpd.ok("metronome").get("metronome") == "off",
          lambda: mpd.ok("metronome"))

    # count-in (MPD has no read form of it: the daemon's JSON status says)
    def count_in():
        return api_json(s.base, "/api/status")[1].get("count_in")
    press("#b-cnt", "count-in: the daemon's count_in is 4", lambda: count_in() == 4, count_in)
    eventually(report, "count-in: the page shows it pressed",
               lambda: js(d, "return document.getElementById('b-cnt').getAttribute('aria-pressed') === 'true'"), stall)
    press("#b-cnt", "count-in again: off", lambda: count_in() is None, count_in)

    # the pass of a loop with passes: "pass N/10" on the stand, N the pass heard (MPD's loop_pass) — from the second
    # pass on, so that a page a pass behind fails
    mpd.ok("loop_set 1 4 9")

    def same_pass():
        # read in the middle of a pass (0.5 s from either seam of the 3 s loop): no race with a seam
        heard, shown = mpd.ok("loop_status").get("loop_pass", "0"), text(d, "#s-sec") or ""
        middle = 1.5 <= elapsed() <= 3.5 and mpd.ok("loop_status").get("loop_pass", "0") == heard
        return middle and int(heard) >= 2 and "pass %s/10" % heard in shown
    eventually(report, "a loop of 10 passes: the page shows the pass heard (pass 2/10 or later)", same_pass, stall,
               lambda: (mpd.ok("loop_status").get("loop_pass"), text(d, "#s-sec")))
    report.info["pass chip"] = text(d, "#s-sec")
    mpd.ok("loop_clear")

    # the sleep timer: 30 minutes from the pad (MPD's sleep_timer says so, the page shows the chip), then off
    def sleep_left():
        return int(mpd.ok("sleep_timer").get("sleep", "0"))
    press("#b-sleep", "sleep: MPD sleep_timer about 30 min", lambda: 1700 <= sleep_left() <= 1800, sleep_left)
    eventually(report, "sleep: the page shows the ☾ chip and the button pressed",
               lambda: (text(d, "#s-sleep") or "").startswith("☾") and js(
                   d, "return document.getElementById('b-sleep').getAttribute('aria-pressed') === 'true'"), stall,
               lambda: text(d, "#s-sleep"))
    press("#b-sleep", "sleep again: off", lambda: sleep_left() == 0, sleep_left)

    # the page's clock: a time in tenths is rounded before it is cut (9.96 s was shown "0:010.0")
    clocks = js(d, "return [F.time(9.96, true), F.time(59.96, true), F.time(3.04, true), F.time(125.5)];")
    report.check("times in tenths round before they are cut", clocks == ["0:10.0", "1:00.0", "0:03.0", "2:05"], clocks)

    errors = [e for e in console_errors(d) if "favicon" not in e]
    report.check("no console errors", not errors, errors)
    failed = [x for x in js(d, "return window.__api || []") if x["status"] >= 400]
    report.check("no API call of the page failed", not failed, failed)
    mpd.close()


if __name__ == "__main__":
    main("stand", run)
