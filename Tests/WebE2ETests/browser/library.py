#!/usr/bin/env python3
"""Scenario c: the library page on a library of 20,000 tracks (make_library.py big): an artist found by scrolling the
artists a page at a time, one of its albums added; an album found by scrolling the albums and inserted next; a song
found by search and added; an album folder reached through the folders and added — each checked in MPD's queue. No
answer of the API the page asked for may carry more than one page (500 items), and the page never asks for more.

Settings: base, mpd_port, stall.
"""
import time

from common import MPD, api_log, browser, by_label, click, console_errors, eventually, js, main, page_ready, \
    wait_for

ROWS = "#v-library ul.list > li:not(.more)"


def run(s, report):
    mpd = MPD(s.mpd_port)
    mpd.ok("clear")
    stall = s.stall

    def queue():
        return mpd.all("playlistinfo", "file")

    d = browser(390, 844, "light")
    started = time.monotonic()
    d.get(s.base + "#library")
    page_ready(d, stall)
    eventually(report, "the artists' first page is listed",
               lambda: js(d, "return document.querySelectorAll(arguments[0]).length >= 100", ROWS), stall)
    report.time("first artists page shown (from load)", time.monotonic() - started)

    def find_by_scrolling(label, what):
        """Scrolls down (each scroll lets the list fetch its next page) until a row's name is `label`."""
        start = time.monotonic()
        xpath_js = ("return [...document.querySelectorAll('#v-library ul.list > li button.nm b')]"
                    ".find(b => b.textContent === arguments[0]) || null")

        def look():
            found = js(d, xpath_js, label)
            if not found:
                js(d, "window.scrollTo(0, document.documentElement.scrollHeight)")
            return found
        element = wait_for(look, what, stall, poll=0.2)
        report.time(what, time.monotonic() - start)
        return element

    # an artist on the second page of artists
    artist = find_by_scrolling("Artist 150", "scrolled to Artist 150")
    report.info["rows when Artist 150 was found"] = js(d, "return document.querySelectorAll(arguments[0]).length", ROWS)
    pages = [x for x in api_log(d) if x["url"].startswith("/api/library/artists")]
    report.check("the artists came a page at a time (at least two requests)", len(pages) >= 2,
                 [x["url"] for x in pages])
    click(d, artist.find_element("xpath", ".."))
    album = wait_for(lambda: js(d, "return [...document.querySelectorAll('#v-library button.nm b')]"
                                   ".find(b => b.textContent === 'Album 150-7') || null"), "the albums of Artist 150",
                     stall)
    click(d, album.find_element("xpath", ".."))
    eventually(report, "the album's ten songs are listed",
               lambda: js(d, "return document.querySelectorAll(arguments[0]).length === 10", ROWS), stall)
    add = wait_for(lambda: by_label(d, "Add to the queue: Album 150-7 — Artist 150"), "the album's Add button", stall)
    click(d, add)
    want = ["Artist 150/Album 150-7/%02d Song %d of Album 150-7.wav" % (n, n) for n in range(1, 11)]
    eventually(report, "Add album: MPD's queue holds its ten songs in order", lambda: queue() == want, stall,
               lambda: queue()[:12])

    # an album found by scrolling the albums (page 3 of 2,000), inserted next (nothing plays: at the start)
    click(d, '#v-library .seg button[data-t="albums"]')
    eventually(report, "the albums' first page is listed",
               lambda: js(d, "return document.querySelectorAll(arguments[0]).length >= 100", ROWS), stall)
    find_by_scrolling("Album 030-2", "scrolled to Album 030-2")
    nxt = wait_for(lambda: by_label(d, "Play next: Album 030-2"), "the album's Next button", stall)
    click(d, nxt)
    eventually(report, "Next album: MPD's queue starts with its ten songs",
               lambda: queue()[:10] == ["Artist 030/Album 030-2/%02d Song %d of Album 030-2.wav" % (n, n)
                                        for n in range(1, 11)] and len(queue()) == 20, stall, lambda: queue()[:3])

    # search
    js(d, "window.scrollTo(0, 0)")
    box = d.find_element("css selector", "#v-library input[type=search]")
    box.send_keys("Zanzibar")
    eventually(report, "search: the ten songs of the one album with that word",
               lambda: js(d, "var r = [...document.querySelectorAll(arguments[0])]; return r.length === 10 && "
                             "r.every(li => li.textContent.indexOf('Zanzibar') >= 0)", ROWS), stall,
               lambda: js(d, "return [...document.querySelectorAll(arguments[0])].map(li => li.textContent).slice(0, 3)",
                          ROWS))
    add = wait_for(lambda: by_label(d, "Add to the queue: Song 4 of Album 077-3 Zanzibar"), "the song's Add button",
                   stall)
    click(d, add)
    eventually(report, "search: the song is added at the end of MPD's queue",
               lambda: queue()[-1:] == ["Artist 077/Album 077-3 Zanzibar/04 Song 4 of Album 077-3 Zanzibar.wav"],
               stall, lambda: queue()[-2:])
    box.clear()
    js(d, "var e = document.querySelector('#v-library input[type=search]'); e.dispatchEvent(new Event('input'))")

    # the folders: an artist's folder, then an album's (full paths from the music folder's root)
    click(d, '#v-library .seg button[data-t="folders"]')
    folder = find_by_scrolling("Artist 042", "found the folder Artist 042")
    click(d, folder.find_element("xpath", ".."))
    sub = wait_for(lambda: js(d, "return [...document.querySelectorAll('#v-library button.nm b')]"
                                 ".find(b => b.textContent === 'Album 042-5') || null"), "the folder's albums", stall)
    report.check("the folder lists its ten album folders",
                 js(d, "return document.querySelectorAll(arguments[0]).length", ROWS) == 10,
                 js(d, "return document.querySelectorAll(arguments[0]).length", ROWS))
    click(d, sub.find_element("xpath", ".."))
    eventually(report, "the album folder lists its ten songs",
               lambda: js(d, "return document.querySelectorAll(arguments[0]).length === 10", ROWS), stall)
    report.check("the folder's title is its full path",
                 js(d, "return document.querySelector('#v-library .crumb b').textContent") == "Artist 042/Album 042-5",
                 js(d, "return document.querySelector('#v-library .crumb b').textContent"))
    add = wait_for(lambda: by_label(d, "Add to the queue: Artist 042/Album 042-5"), "the folder's Add button", stall)
    length = len(queue())
    click(d, add)
    eventually(report, "Add folder: MPD's queue ends with its ten songs",
               lambda: queue()[length:] == ["Artist 042/Album 042-5/%02d Song %d of Album 042-5.wav" % (n, n)
                                            for n in range(1, 11)], stall, lambda: queue()[length:length + 2])

    # one page at most per answer, and never more asked for
    time.sleep(0.2)  # the recorder reads each answer's body after the page got it
    log = api_log(d)
    report.info["api calls"] = len(log)
    largest = max(log, key=lambda x: x["items"]) if log else {}
    report.info["largest answer"] = largest
    report.check("no API answer carried more than 500 items", all(x["items"] <= 500 for x in log),
                 [x for x in log if x["items"] > 500])
    import re
    limits = [int(m) for x in log for m in re.findall(r"[?&]limit=(\d+)", x["url"])]
    report.check("the page never asked for more than 500 items", all(n <= 500 for n in limits), limits)
    report.check("the page's requests all succeeded", all(x["status"] < 400 for x in log),
                 [x for x in log if x["status"] >= 400])
    # the server's side of it: a page is 100 by default, 500 at most; 501 is refused
    from common import api_json
    status, albums = api_json(s.base, "/api/library/albums")
    report.check("GET /api/library/albums: 100 of 2,000 by default",
                 status == 200 and len(albums["items"]) == 100 and albums["total"] == 2000,
                 (status, albums and albums.get("total")))
    status, albums = api_json(s.base, "/api/library/albums?offset=1800&limit=500")
    report.check("GET /api/library/albums?offset=1800&limit=500: the last 200",
                 status == 200 and len(albums["items"]) == 200, status)
    status, _ = api_json(s.base, "/api/library/albums?limit=501")
    report.check("GET /api/library/albums?limit=501 is refused (400)", status == 400, status)
    status, search = api_json(s.base, "/api/library/search?q=Song&limit=500")
    report.check("GET /api/library/search?q=Song&limit=500: one page of 500", status == 200 and len(search["songs"]) == 500,
                 status)
    errors = console_errors(d)
    report.check("no console errors", not errors, errors)
    mpd.close()


if __name__ == "__main__":
    main("library", run)
