#!/usr/bin/env python3
"""Scenario d: the practice page. A few seconds played with a loop set seed the statistics; the page's chart (an SVG
it draws) then has a bar for today, and the track and its loop are listed. The loop is saved as a named section from
the page, then edited there (name, start, end, passes, tempo); MPD's `sections` shows each change. Queued and played,
the section's status gives the file's length and position (the part in song.range). A pause writes the practice time:
the page gets a `practice` event and asks for its chart again.

Settings: base, mpd_port, stall, album.
"""
import time

from common import MPD, api_json, browser, by_label, click, console_errors, eventually, js, main, page_ready, quote, \
    text, wait_for


def run(s, report):
    mpd = MPD(s.mpd_port)
    stall = s.stall
    mpd.ok("clear")
    mpd.ok("add " + quote(s.album))
    mpd.ok("play 0")
    wait_for(lambda: mpd.ok("status").get("state") == "play", "playing", stall)
    mpd.ok("loop_set 2 4")
    # Practice time: two whole passes of the 2 s loop (the pass counter says so), counted as the loop's.
    start = time.monotonic()
    wait_for(lambda: int(mpd.ok("loop_status").get("loop_pass", "0")) >= 3, "the loop's third pass", stall)
    report.time("two passes of the loop", time.monotonic() - start)

    def sections():
        """MPD's sections as a list of dicts."""
        out = []
        for k, v in mpd.pairs("sections"):
            if k == "section":
                out.append({"name": v})
            elif out and k in ("start", "end", "passes", "tempo"):
                out[-1][k] = v
        return out

    d = browser(390, 844, "light")
    d.get(s.base + "#practice")
    page_ready(d, stall)

    # the chart and the lists
    eventually(report, "the chart is an SVG with a bar for today",
               lambda: js(d, "return document.querySelectorAll('#v-practice svg.chart rect.b').length >= 1"), stall,
               lambda: js(d, "var c = document.querySelector('#v-practice svg.chart'); return c ? c.outerHTML.slice(0, 300) "
                             ": document.getElementById('v-practice').textContent.slice(0, 300)"))
    report.check("the chart has the 7 days", js(d, "return document.querySelectorAll('#v-practice svg.chart rect.z').length")
                 == 7, js(d, "return document.querySelectorAll('#v-practice svg.chart rect.z').length"))
    report.check("the track is listed with its time",
                 "Étude No. 1 in E minor" in (text(d, "#v-practice .hb") or ""), text(d, "#v-practice .hb"))
    report.check("its loop is listed under it", js(d, "return document.querySelectorAll('#v-practice .hl.s').length >= 1"),
                 text(d, "#v-practice .hb"))
    report.info["practice total"] = text(d, "#v-practice p.mut")
    click(d, '#v-practice .seg button[data-d="30"]')
    eventually(report, "30 days: the chart has 30 days",
               lambda: js(d, "return document.querySelectorAll('#v-practice svg.chart rect.z').length === 30 && "
                             "document.querySelectorAll('#v-practice svg.chart rect.b').length >= 1"), stall)

    # save the loop as a named section
    name = by_label(d, "Name of the new section", "input")
    click(d, name)
    name.send_keys("Verse")
    click(d, wait_for(lambda: [b for b in d.find_elements("css selector", "#v-practice form.bar-row button[type=submit]")
                                if b.is_enabled()], "the save button enabled", stall)[0])
    # (section_save keeps the tempo in force with it: 100)
    eventually(report, "save: MPD sections has Verse 2-4",
               lambda: [{k: v for k, v in x.items() if k != "tempo"} for x in sections()]
               == [{"name": "Verse", "start": "2.000", "end": "4.000"}], stall, sections)
    eventually(report, "save: the page lists it",
               lambda: "1. Verse" in (text(d, "#v-practice ul.list") or ""), stall, lambda: text(d, "#v-practice ul.list"))

    # edit it: name, start, end, passes, tempo
    click(d, wait_for(lambda: by_label(d, "Rename or edit the section Verse"), "the Edit button", stall))
    form = wait_for(lambda: d.find_elements("css selector", "#v-practice form.edit"), "the edit form", stall)[0]
    fields = form.find_elements("css selector", "input")
    values = ["Chorus", "0:01.5", "0:05", "3", "90"]
    for field, value in zip(fields, values):
        field.clear()
        field.send_keys(value)
    click(d, form.find_element("css selector", "button[type=submit]"))
    eventually(report, "edit: MPD sections has Chorus 1.5-5, 3 passes, 90 %",
               lambda: sections() == [{"name": "Chorus", "start": "1.500", "end": "5.000", "passes": "3", "tempo": "90"}],
               stall, sections)
    eventually(report, "edit: the page lists the section as changed",
               lambda: "1. Chorus" in (text(d, "#v-practice ul.list") or "")
               and "×3" in (text(d, "#v-practice ul.list") or "") and "90%" in (text(d, "#v-practice ul.list") or ""),
               stall, lambda: text(d, "#v-practice ul.list"))

    # the stand shows the section being played, with its pass
    mpd.ok("section_play 1")
    d.execute_script("location.hash = '#stand'")
    eventually(report, "the stand shows the section and its pass",
               lambda: (text(d, "#s-sec") or "").startswith("§ Chorus · pass ") and "/3" in (text(d, "#s-sec") or ""),
               stall, lambda: text(d, "#s-sec"))
    report.info["section chip"] = text(d, "#s-sec")

    # queue the section as an entry of its own (a set list): MPD shows its part, passes and tempo, and so does the
    # queue page; played, the stand names it
    d.execute_script("location.hash = '#practice'")
    click(d, wait_for(lambda: by_label(d, "Queue the section Chorus"), "the section's Queue button", stall))

    def queued():
        entries, current = [], None
        for k, v in mpd.pairs("playlistinfo"):
            if k == "file":
                current = {"file": v}
                entries.append(current)
            elif current is not None:
                current[k] = v
        return [e for e in entries if e.get("Section") == "Chorus"]
    eventually(report, "queue section: MPD's queue has the section as an entry (3 passes, 90 %)",
               lambda: queued() and queued()[0].get("Passes") == "3" and queued()[0].get("Tempo") == "90", stall,
               lambda: mpd.pairs("playlistinfo")[-12:])
    entry = queued()[0] if queued() else {}
    d.execute_script("location.hash = '#queue'")
    eventually(report, "queue section: the queue page shows it with its passes and tempo",
               lambda: "§ Chorus ×3 at 90%" in (text(d, "#v-queue ul.list") or ""), stall,
               lambda: text(d, "#v-queue ul.list"))
    if entry.get("Id"):
        click(d, wait_for(lambda: js(d, "var li = document.querySelector('#v-queue li[data-id=\"' + arguments[0] + '\"]');"
                                        "return li && li.querySelector('.acts button');", entry["Id"]),
                          "the entry's Play button", stall))
        eventually(report, "queue section: played, MPD plays that entry",
                   lambda: mpd.ok("status").get("songid") == entry["Id"], stall, lambda: mpd.ok("status"))
        d.execute_script("location.hash = '#stand'")
        eventually(report, "queue section: the stand names it with its passes",
                   lambda: (text(d, "#s-sec") or "") in ("§ Chorus · ×3", "§ Chorus · pass 1/3", "§ Chorus · pass 2/3",
                                                         "§ Chorus · pass 3/3"), stall, lambda: text(d, "#s-sec"))
        eventually(report, "queue section: the stand's bar is the part (3.5 s, its ends shown)",
                   lambda: text(d, "#s-dur") == "0:03" and text(d, "#s-loop") == "0:01.5 – 0:05.0"
                   and text(d, "#s-el") in ("0:00", "0:01", "0:02", "0:03"), stall,
                   lambda: (text(d, "#s-el"), text(d, "#s-dur"), text(d, "#s-loop")))
        report.info["queued section chip"] = text(d, "#s-sec")
        # the status of a ranged entry: the file's length and the file's position, the part in song.range
        length = float(dict(mpd.pairs("lsinfo " + quote(entry["file"]))).get("duration", "0"))
        status = api_json(s.base, "/api/status")[1]
        song = status.get("song") or {}
        report.check("queue section: GET /api/status gives the file's length beside the file's position",
                     abs((status.get("duration") or 0) - length) < 0.01 and 1.4 <= status.get("elapsed", -1) <= 5.1
                     and song.get("range") == "1.500-5.000" and abs((song.get("duration") or 0) - 3.5) < 0.01,
                     (length, status.get("duration"), status.get("elapsed"), song))

    # practice time written (playing paused) is a `practice` event, and the practice page reloads its chart
    d.execute_script("location.hash = '#practice'; window.__api.length = 0;")
    mpd.ok("pause")
    eventually(report, "a pause writes practice time: the page gets a practice event",
               lambda: js(d, "return window.__fermataEvents.some(function (e) { return e.name === 'practice'; })"), stall,
               lambda: js(d, "return window.__fermataEvents.map(function (e) { return e.name; })"))
    eventually(report, "the practice page asks for the statistics again",
               lambda: any(x["url"].startswith("/api/practice?") for x in js(d, "return window.__api")), stall,
               lambda: js(d, "return window.__api"))

    errors = console_errors(d)
    report.check("no console errors", not errors, errors)
    mpd.close()


if __name__ == "__main__":
    main("practice", run)
