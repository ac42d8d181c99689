#!/usr/bin/env python3
"""Recording yourself on the practice page.

Without a capture device (`capture`: false): the Record toggle is shown (a target of at least 15 mm), says there is no
capture device; tapped, it is refused in words (the API's 409, shown where the toggle is) and MPD's `record` stays
off.

With one (`capture`: true; the daemon's record.device reads `fifo` through alsa-lib's `file` capture): this script
feeds the FIFO 10 ms of 16-bit noise every 10 ms at the rate and channels the music plays at (the capture reads a
10 ms period at a time, and alsa-lib's `file` capture returns after each chunk the FIFO gives: a device's pace), plays a 2 s loop, turns Record on
from the page and waits for takes; the page lists them under the loop with date, pass, tempo and length. Play queues
the take alone and plays it, Alternate the original's loop and the take twice (MPD's queue and status say so),
Together (with the balance slider at 70 %, said in words) the original's loop with the take over it, Delete
asks first and then removes it (MPD's `takes` and the page follow).

With `shots`, pictures of the recording part of the practice page go there: `phone-light-recording-nodevice.png`
after the refusal; with takes, `{phone,tablet}-{light,dark}-recording.png` (the Record toggle on, its phase, the
takes listed), and the checks that nothing there is wider than the screen.

Settings: base, mpd_port, stall, album, capture, fifo, shots (optional).
"""
import os
import random
import threading
import time

from common import MPD, api_json, browser, by_label, click, console_errors, emulate, eventually, js, main, page_ready, \
    quote, shot, text, wait_for

PX_PER_MM = 96 / 25.4
SIZES = [("phone", 390, 844), ("tablet", 1024, 768)]
WIDE = "return [...document.querySelectorAll('#v-practice *')].filter(e => e.getClientRects().length && " \
       "e.getBoundingClientRect().right > innerWidth + 1).map(e => e.id || e.className || e.tagName).slice(0, 5);"


def shoot(d, s, report, name, stall):
    """The recording part of the practice page at the top of the screen, as `name`."""
    js(d, "document.getElementById('rec').scrollIntoView({block: 'start'}); window.scrollBy(0, -60);")
    time.sleep(0.3)  # the layout settles
    path = shot(d, os.path.join(s.shots, name))
    wide = js(d, WIDE)
    report.check("%s: nothing wider than the screen" % name, not wide, wide)
    report.info.setdefault("shots", []).append(path)


class Feeder:
    """Writes 10 ms of noise every 10 ms into the FIFO (opened read-write and non-blocking: it never waits for the
    reader, and a full FIFO drops the chunk as a device would)."""

    def __init__(self, path, rate, channels):
        if not os.path.exists(path):
            os.mkfifo(path, 0o600)
        self.fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
        self.chunk = rate // 100 * channels * 2
        self.stopping = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        noise = random.Random(1).randbytes(self.chunk * 50)
        due, i = time.monotonic(), 0
        while not self.stopping:
            try:
                os.write(self.fd, noise[i * self.chunk:(i + 1) * self.chunk])
            except BlockingIOError:
                pass
            i = (i + 1) % 50
            due += 0.01
            time.sleep(max(0.0, due - time.monotonic()))

    def stop(self):
        self.stopping = True
        self.thread.join(5)
        os.close(self.fd)


def record(mpd):
    return dict(mpd.pairs("record"))


def takes(mpd):
    out = []
    for k, v in mpd.pairs("takes"):
        if k == "take":
            out.append({"take": v})
        elif out:
            out[-1][k] = v
    return out


def run(s, report):
    mpd = MPD(s.mpd_port)
    stall = s.stall
    feeder = None
    try:
        mpd.ok("clear")
        mpd.ok("add " + quote(s.album))
        mpd.ok("play 0")
        wait_for(lambda: mpd.ok("status").get("audio"), "playing", stall)
        mpd.ok("loop_set 1 3")
        if s.get("capture"):
            # the capture is opened at the output's rate, 16-bit, at most two channels
            rate, _, channels = mpd.ok("status")["audio"].split(":")
            feeder = Feeder(s.fifo, int(rate), min(2, int(channels)))
            report.info["capture"] = "%s Hz, %d channel(s)" % (rate, min(2, int(channels)))
        body(s, report, mpd, stall)
    finally:
        if feeder:
            feeder.stop()
        mpd.close()


def body(s, report, mpd, stall):

    d = browser(390, 844, "light")
    d.get(s.base + "#practice")
    page_ready(d, stall)
    toggle = wait_for(lambda: d.find_elements("css selector", "#rec-toggle"), "the Record toggle", stall)[0]

    def pressed():
        # looked up each time: the page draws the Practice view again on its events, and a kept element goes stale
        # (a loaded run raised StaleElementReferenceException here)
        try:
            found = d.find_elements("css selector", "#rec-toggle")
            return found[0].get_attribute("aria-pressed") if found else None
        except Exception:  # noqa: BLE001 - drawn again between the lookup and the read: look again next poll
            return None
    js(d, "arguments[0].scrollIntoView({block: 'center'});", toggle)
    report.check("the Record toggle is shown", toggle.is_displayed() and "Record" in toggle.text, toggle.text)
    size = js(d, "var r = arguments[0].getBoundingClientRect(); return [r.width, r.height];", toggle)
    report.check("the Record toggle is at least 15 mm each way", min(size) >= 15 * PX_PER_MM - 0.5, size)

    if not s.get("capture"):
        eventually(report, "no device: the page says no capture device is configured",
                   lambda: "No capture device configured" in (text(d, "#rec-say") or ""), stall,
                   lambda: text(d, "#rec-say"))
        click(d, "#rec-toggle")
        eventually(report, "no device: turning it on is refused in words where the toggle is",
                   lambda: "Cannot record: no capture device: set record.device" in (text(d, "#rec-say") or ""), stall,
                   lambda: text(d, "#rec-say"))
        report.check("no device: the toggle stays off", pressed() == "false",
                     pressed())
        report.check("no device: MPD's record is off", record(mpd).get("record") == "0", record(mpd))
        status, answer = api_json(s.base, "/api/recording", "POST", {"on": True})
        report.check("no device: POST /api/recording is a 409 that says why",
                     status == 409 and "no capture device" in (answer or {}).get("error", ""), (status, answer))
        status, answer = api_json(s.base, "/api/takes", "GET")
        report.check("no device: GET /api/takes lists none", status == 200 and answer.get("takes") == [], (status, answer))
        eventually(report, "no device: the takes list says there are none yet",
                   lambda: "No takes of this track yet" in (text(d, "#rec-takes") or ""), stall,
                   lambda: text(d, "#rec-takes"))
        if s.get("shots"):
            shoot(d, s, report, "phone-light-recording-nodevice.png", stall)
        errors = [e for e in console_errors(d) if not ("/api/recording" in e and "409" in e)]
        report.check("no console errors (but the 409 asked for)", not errors, errors)
        return

    # with a capture device: on from the page while the loop plays
    eventually(report, "capture: the page names no problem before",
               lambda: "Off." in (text(d, "#rec-say") or ""), stall, lambda: text(d, "#rec-say"))
    click(d, "#rec-toggle")
    eventually(report, "capture: the toggle is on", lambda: pressed() == "true", stall,
               lambda: (pressed(), text(d, "#rec-say")))
    report.check("capture: MPD's record is on", record(mpd).get("record") == "1", record(mpd))
    eventually(report, "capture: the page says it records (a `recording` event)",
               lambda: "Recording: each pass of the loop is a take." in (text(d, "#rec-say") or ""), stall,
               lambda: (text(d, "#rec-say"), record(mpd)))
    start = time.monotonic()
    eventually(report, "capture: two takes are kept", lambda: len(takes(mpd)) >= 2, stall,
               lambda: (record(mpd), takes(mpd)))
    report.time("two takes", time.monotonic() - start)
    click(d, "#rec-toggle")
    eventually(report, "capture: turned off from the page, MPD's record is off",
               lambda: record(mpd).get("record") == "0", stall, lambda: record(mpd))
    kept = takes(mpd)
    report.info["takes"] = kept
    eventually(report, "capture: the page lists every take under the loop, playing now",
               lambda: len(d.find_elements("css selector", "#rec-takes li[data-take]")) == len(takes(mpd))
               and "Loop 0:01.0 – 0:03.0 (playing now)" in (text(d, "#rec-takes h4") or ""), stall,
               lambda: text(d, "#rec-takes"))
    first = kept[0]
    row = text(d, '#rec-takes li[data-take="%s"]' % first["take"]) or ""
    report.check("capture: a take's row has its pass, tempo and length",
                 ("pass " + first["pass"]) in row and "100 %" in row and "0:02" in row, row)
    report.info["take row"] = row
    buttons = d.find_elements("css selector", '#rec-takes li[data-take="%s"] button' % first["take"])
    sizes = [js(d, "var r = arguments[0].getBoundingClientRect(); return Math.min(r.width, r.height);", b) for b in buttons]
    report.check("capture: Play, Alternate, Together and Delete are at least 15 mm", len(buttons) == 4
                 and min(sizes) >= 15 * PX_PER_MM - 0.5, sizes)
    if s.get("shots"):
        # recording on again for the pictures (its phase shown), the takes listed
        click(d, "#rec-toggle")
        wait_for(lambda: pressed() == "true", "recording on for the pictures", stall)
        for size, w, h in SIZES:
            for scheme in ("light", "dark"):
                emulate(d, w, h, scheme)
                shoot(d, s, report, "%s-%s-recording.png" % (size, scheme), stall)
        emulate(d, 390, 844, "light")
        click(d, "#rec-toggle")
        wait_for(lambda: record(mpd).get("record") == "0", "recording off after the pictures", stall)
        kept = takes(mpd)
        wait_for(lambda: len(d.find_elements("css selector", "#rec-takes li[data-take]")) == len(kept),
                 "the page lists the takes", stall)

    what = "take %s (pass %s)" % (first["take"], first["pass"])
    file = "takes/take-%s.flac" % first["take"]

    def queue():
        out = []
        for k, v in mpd.pairs("playlistinfo"):
            if k == "file":
                out.append({"file": v})
            elif out:
                out[-1][k] = v
        return out

    def current():
        st = mpd.ok("status")
        return next((e for e in queue() if e.get("Id") == st.get("songid")), {}), st

    click(d, wait_for(lambda: by_label(d, "Play " + what + " alone"), "the take's Play button", stall))
    eventually(report, "play: MPD plays the take alone",
               lambda: current()[0].get("file", "").endswith(file) and current()[1].get("state") == "play", stall,
               current)
    before = len(queue())
    click(d, wait_for(lambda: by_label(d, "Alternate the original and " + what), "the take's Alternate button", stall))

    def alternated():
        q = queue()
        if len(q) != before + 4:
            return False
        cur = current()[0]
        at = next((i for i, e in enumerate(q) if e.get("Id") == cur.get("Id")), -1)
        four = q[at:at + 4]
        return len(four) == 4 and [e["file"].endswith(file) for e in four] == [False, True, False, True] \
            and four[0]["file"] == first["file"] and four[0].get("Range", "").startswith("1.000-3.000")
    eventually(report, "alternate: MPD's queue has the original's loop then the take, twice, playing the first",
               alternated, stall, lambda: (queue()[-6:], mpd.ok("status").get("songid")))

    # Together: the slider sets the take's share, said in words; the original's loop is queued and played with the
    # take over it (the mix itself is proven on captured PCM by TakeMixTests)
    js(d, "var b = document.getElementById('take-balance'); b.value = '70';"
          "b.dispatchEvent(new Event('input', { bubbles: true }));")
    said = text(d, "#take-balance-say") or ""
    report.check("together: the slider's share is said in words", "balance 70 % towards your take" in said, said)
    before = len(queue())
    click(d, wait_for(lambda: by_label(d, "Play the original with " + what + " over it"), "the take's Together button",
                      stall))

    def together():
        q, (cur, st) = queue(), current()
        return len(q) == before + 1 and cur.get("file") == first["file"] and st.get("state") == "play" \
            and cur.get("Range", "").startswith("1.000-3.000")
    eventually(report, "together: MPD plays the original's loop, queued once", together, stall,
               lambda: (queue()[-3:], current()))

    click(d, wait_for(lambda: by_label(d, "Delete " + what), "the take's Delete button", stall))
    confirm = wait_for(lambda: [b for b in d.find_elements("css selector", "#v-practice .confirm button.dan")
                                if b.is_displayed()], "the confirmation", stall)[0]
    report.check("delete: it asks first", first["take"] in (text(d, "#v-practice .confirm") or ""),
                 text(d, "#v-practice .confirm"))
    click(d, confirm)
    eventually(report, "delete: MPD's takes no longer has it",
               lambda: all(t["take"] != first["take"] for t in takes(mpd)), stall, lambda: takes(mpd))
    eventually(report, "delete: the page no longer lists it",
               lambda: not d.find_elements("css selector", '#rec-takes li[data-take="%s"]' % first["take"]), stall,
               lambda: text(d, "#rec-takes"))
    errors = console_errors(d)
    report.check("no console errors", not errors, errors)


if __name__ == "__main__":
    main("recording", run)
