#!/usr/bin/env python3
"""Pages that come and go: 40 reloads of the stand in a row, then 8 tabs of the remote in one browser.

Each reload must show the status on the stand, and get its event stream's first `status`, within `bound` seconds: the
daemon follows at most 16 streams, and a page that closed its connection used to keep its place until a keep-alive
write failed (15 to 30 s), so the 17th reload's stream was refused (429) and the stand stayed blank. A browser keeps
6 connections per host, and each page's stream holds one: a hidden tab lets its stream go (and opens a new one when
shown), so 8 tabs all load; each shown again gets its stream back.

Settings: base, mpd_port, stall, album, bound (seconds; default 10).
"""
import statistics
import time

from common import MPD, browser, console_errors, js, main, quote

# The stand has a status, and (with `stream`) the event stream has delivered one since the page loaded.
SHOWN = ("return !!(window.F && F.S && F.role === 'owner') && document.getElementById('s-title').textContent !== '…'"
         " && (!arguments[0] || (window.__fermataEvents || []).some(function (e) { return e.name === 'status'; }));")


def until(driver, bound, stream=True):
    """Seconds until the page shows the stand (and its stream's first status); None past `bound`."""
    start = time.monotonic()
    while time.monotonic() - start < bound:
        try:
            if js(driver, SHOWN, stream):
                return time.monotonic() - start
        except Exception:  # noqa: BLE001 - the page is between documents
            pass
        time.sleep(0.02)
    return None


def run(s, report):
    bound = float(s.get("bound", 10))
    mpd = MPD(s.mpd_port)
    mpd.ok("clear")
    mpd.ok("add " + quote(s.album))
    mpd.ok("repeat 1")
    mpd.ok("play 0")

    d = browser(390, 844, "light")
    d.get(s.base + "#stand")
    report.check("the first page shows the stand and its stream", until(d, s.stall) is not None)

    times, late = [], []
    for i in range(40):
        d.refresh()
        took = until(d, bound)
        if took is None:
            late.append(i + 1)
            # how it failed: the status shown without a stream, or nothing
            report.info.setdefault("late reloads", []).append(
                {"reload": i + 1, "stand without stream": bool(until(d, 0.05, stream=False) is not None)})
        else:
            times.append(took)
    report.check("40 reloads in a row: each shows the stand and gets its event stream within %g s" % bound,
                 not late, "late: %s" % late)
    if times:
        report.time("reload -> stand and stream, median", statistics.median(times))
        report.time("reload -> stand and stream, max", max(times))

    # 8 tabs of the remote in one browser (6 connections per host)
    tabs = [d.current_window_handle]
    d.set_page_load_timeout(bound)  # a 7th tab with no connection left never loads: a failed check, not a hang
    for i in range(7):
        d.switch_to.new_window("tab")
        try:
            d.get(s.base + "#stand")
        except Exception as e:  # noqa: BLE001 - selenium's TimeoutException
            report.check("tab %d of 8 loads and follows the box" % (i + 2), False, "the page did not load: %s" %
                         str(e).split("\n")[0])
            return
        took = until(d, bound)
        report.check("tab %d of 8 loads and follows the box" % (i + 2), took is not None,
                     "hidden: %s" % js(d, "return document.hidden"))
        if took is not None:
            report.time("tab %d -> stand and stream" % (i + 2), took)
        tabs.append(d.current_window_handle)
    hidden = []
    for h in tabs[:-1]:
        d.switch_to.window(h)
        hidden.append(js(d, "return document.visibilityState"))
    report.info["the other tabs' visibility as seen from each (after switching to it)"] = hidden
    # the first tab shown again: a new stream, its first status
    d.switch_to.window(tabs[0])
    js(d, "window.__fermataEvents.length = 0;")
    mpd.ok("pause")
    report.check("the first tab shown again follows the box (a pause shows)",
                 until(d, bound) is not None and _paused(d, bound), js(d, "return window.__fermataEvents"))
    errors = console_errors(d)
    report.check("no console errors", not errors, errors)
    mpd.close()


def _paused(d, bound):
    start = time.monotonic()
    while time.monotonic() - start < bound:
        if js(d, "return !!(F.S && F.S.state === 'pause');"):
            return True
        time.sleep(0.05)
    return False


if __name__ == "__main__":
    main("reloads", run)
