#!/usr/bin/env python3
"""A network stream from the page: the queue page's "Radio / stream URL" field plays an endless MP3 with ICY titles
served by Tests/Tools/streams/hostile_server.py (`/ok.mp3?metaint=16000&titles=A|B&every=2`); the stand shows the
station (its icy-name) as the artist line and the title it sends now as the title, which changes from A to B without a
request; no length and no seeking, the loop controls off. "Add" queues a second one; the queue page names both by
their station or address; a stored playlist holding them loads back. Bad URLs (another scheme, no host, a space, over
2048 bytes) are a 400 that says why, and change nothing. Screenshots of the stand with the stream playing, phone light
and dark, in `shots`: for a person to look at.

Settings: base, mpd_port, stall, shots.
"""
import json
import os
import subprocess
import sys
import time

from common import MPD, api_json, browser, by_label, click, console_errors, emulate, eventually, js, main, \
    page_ready, shot, text, wait_for

SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tools", "streams", "hostile_server.py")
STATION = "fermata hostile server"


def run(s, report):
    stall = s.stall
    server = subprocess.Popen([sys.executable, SERVER, "--port", "0", "--lifetime", "900"], stdout=subprocess.PIPE,
                              text=True)
    try:
        ready = json.loads(server.stdout.readline())
        scenario(s, report, stall, ready["base"])
    finally:
        server.terminate()
        try:
            server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=30)


def scenario(s, report, stall, served):
    mpd = MPD(s.mpd_port)
    mpd.ok("clear")
    url = served + "/ok.mp3?metaint=16000&titles=A|B&every=2"
    host = url.split("/")[2]

    # bad URLs: a clear 400 each, nothing queued
    for bad, why in [("ftp://%s/x.mp3" % host, "http"), ("http:///x.mp3", "host"), (url + " x", "space"),
                     ("http://%s/%s" % (host, "a" * 2048), "2048")]:
        status, answer = api_json(s.base, "/api/queue", "POST", {"uris": [bad]})
        report.check("POST /api/queue %s…: 400 saying why (%s)" % (bad[:24], why),
                     status == 400 and why in (answer or {}).get("error", ""), (status, answer))
    report.check("the bad URLs queued nothing", mpd.ok("status").get("playlistlength") == "0", mpd.ok("status"))

    d = browser(390, 844, "light")
    d.get(s.base + "#queue")
    page_ready(d, stall)
    field = wait_for(lambda: by_label(d, "Radio or stream URL", "input"), "the stream URL field", stall)
    click(d, field)
    field.send_keys(url)
    click(d, by_label(d, "Play the stream now"))
    eventually(report, "play now: MPD plays the stream",
               lambda: mpd.ok("status").get("state") == "play" and mpd.ok("currentsong").get("file") == url, stall,
               lambda: (mpd.ok("status"), mpd.ok("currentsong")))
    # The page empties the field when its call answers, which a loaded browser may do after MPD already plays (a
    # CI-like run read it too soon): waited for, as the rest.
    eventually(report, "the field is emptied", lambda: field.get_attribute("value") == "", stall,
               lambda: field.get_attribute("value"))

    js(d, "location.hash = '#stand'")
    eventually(report, "the stand shows the station as the artist line",
               lambda: text(d, "#s-artist") == STATION, stall, lambda: (text(d, "#s-title"), text(d, "#s-artist")))
    eventually(report, "the stand shows the stream's title now (A or B)",
               lambda: text(d, "#s-title") in ("A", "B"), stall, lambda: text(d, "#s-title"))
    first = text(d, "#s-title")
    requests = len(js(d, "return window.__api"))
    eventually(report, "the title changes on the stand (%s to the other) with no request" % first,
               lambda: text(d, "#s-title") in ("A", "B") and text(d, "#s-title") != first, stall,
               lambda: text(d, "#s-title"))
    report.check("no request was made for it", len(js(d, "return window.__api")) == requests,
                 js(d, "return window.__api")[requests:])
    status = api_json(s.base, "/api/status")[1]
    report.check("GET /api/status: the stream's station and title, no duration",
                 (status.get("stream") or {}).get("name") == STATION and
                 (status.get("stream") or {}).get("title") in ("A", "B") and status.get("duration") is None, status)
    report.check("the stand: no length, a live clock", text(d, "#s-dur") == "live" and
                 js(d, "return getComputedStyle(document.querySelector('#bar .trk')).visibility") == "hidden",
                 (text(d, "#s-dur"), text(d, "#s-el")))
    report.check("seeking is off for a stream", js(d, "return document.getElementById('bar').getAttribute('aria-disabled')")
                 == "true")
    report.check("the loop controls are off for a stream (A, B, Again!)",
                 js(d, "return ['b-la', 'b-lb', 'b-ag'].every(function (i) { return document.getElementById(i).disabled; })"))
    before = float(mpd.ok("status").get("elapsed", "0"))
    click(d, "#bar")
    time.sleep(0.3)
    after = float(mpd.ok("status").get("elapsed", "0"))
    report.check("a tap on the bar does not seek", 0 <= after - before < 2, (before, after))
    eventually(report, "the clock runs (elapsed shown)", lambda: text(d, "#s-el") not in ("0:00", None), stall,
               lambda: text(d, "#s-el"))

    # screenshots of the stand playing the stream, phone light and dark
    out = s.get("shots")
    if out:
        os.makedirs(out, exist_ok=True)
        for scheme in ("light", "dark"):
            emulate(d, 390, 844, scheme)
            time.sleep(0.4)
            shot(d, os.path.join(out, "phone-%s-stand-stream.png" % scheme))
        emulate(d, 390, 844, "light")
        report.info["shots"] = out

    # "Add": a second stream; the queue page names both
    js(d, "location.hash = '#queue'")
    second = served + "/ok.mp3?metaint=16000&title=Second"
    field = wait_for(lambda: by_label(d, "Radio or stream URL", "input"), "the stream URL field", stall)
    click(d, field)
    field.send_keys(second)
    click(d, by_label(d, "Add the stream to the queue"))
    eventually(report, "add: MPD's queue has both streams",
               lambda: mpd.all("playlistinfo", "file") == [url, second], stall, lambda: mpd.all("playlistinfo", "file"))
    eventually(report, "the queue page names them by their station and title, or address",
               lambda: len(rows(d)) == 2 and rows(d)[1].startswith("2. " + host) and "stream · " + host in rows(d)[1]
               and rows(d)[0].split("\n")[0] in ("1. A", "1. B") and ("stream · " + STATION) in rows(d)[0], stall,
               lambda: rows(d))
    report.info["queue rows"] = rows(d)

    # a stored playlist holding streams: saved, listed with its URLs (one more added by MPD's playlistadd), loaded back
    api_json(s.base, "/api/playlists", "POST", {"name": "Radio"})
    third = served + "/ok.mp3?title=Third"
    mpd.ok('playlistadd Radio "%s"' % third)
    status, listed = api_json(s.base, "/api/playlists/Radio")
    report.check("GET /api/playlists/Radio lists the stream URLs",
                 status == 200 and [x["file"] for x in listed.get("songs", [])] == [url, second, third], (status, listed))
    mpd.ok("clear")
    click(d, wait_for(lambda: by_label(d, "Load (replace the queue with) Radio"), "the playlist's Load button", stall))
    eventually(report, "the playlist loads the streams back and plays",
               lambda: mpd.all("playlistinfo", "file") == [url, second, third] and mpd.ok("status").get("state") == "play",
               stall, lambda: mpd.all("playlistinfo", "file"))
    mpd.ok("stop")
    errors = console_errors(d)
    report.check("no console errors", not errors, errors)
    mpd.close()


def rows(d):
    return js(d, "return [...document.querySelectorAll('#v-queue ul.list li[data-id]')].map(function (li) {"
                 " return li.querySelector('.nm').innerText; });") or []


if __name__ == "__main__":
    main("stream", run)
