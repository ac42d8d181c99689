#!/usr/bin/env python3
"""The web remote's benchmark (issue 36's targets): page load, tap → player, box → page, memory with pages open.

Starts its own fermatad (null output, loopback only) on a generated library of tagged FLACs (ffmpeg), queues and
plays them, drives headless Chromium through Selenium (Debian's chromium and chromium-driver), and measures:

  load   first page load to interactive, cold (a new browser profile each time) and warm (a reload): navigation
         start → the stand shows the first status (performance.mark "fermata-ready", made in app.js's stand());
         Navigation Timing's domInteractive; bytes transferred for the first page (Resource Timing's transferSize
         summed over the document and every resource it loaded, and the DevTools Network domain's
         encodedDataLength, which also counts the event stream's first event). Median and max.
  tap    a tap on the page → the player's state changed in the engine: clicks the stand's play/pause button (the
         click time recorded in the page, performance.timeOrigin + performance.now()) and an MPD client in
         `idle player` timestamps the change with time.time() (the same system clock; the page's offset to it is
         measured and subtracted), then reads `status` to check the state. Alternately pause and play.
         "Audible" here is when the player's state has changed in the engine (status's state is the player's
         transport, set in the step that takes the command; the output thread acts on it at its next period:
         `fermata-bench transport` measures that part, pause → device paused). With the null output there is no
         sound card: on a board the ALSA buffer adds its period × periods (20 ms by default) on top.
         Also printed: the tap → the page showing the new state (both ends in the page).
  box    a box event → the page: an MPD client sends `pause 1`/`pause 0` (time.time() just before sending) and the
         page's event stream delivers the `status` event (arrival time recorded in app.js's EventSource handler,
         window.__fermataEvents). A button on the box cannot be pressed here (no GPIO): its action goes through the
         same change feed (IdleBroadcaster → WebEvents) as an MPD client's command, so this is its path too, less
         the controls' own edge → action time (fermata-controls-bench latency).
  rss    fermatad's VmRSS and RssAnon (/proc/PID/status): idle with no page ever opened (playing), then with
         --pages pages open for --rss-seconds (a pause/play every 2 s so every stream carries events; each page is
         checked to have received them), then after closing them (--settle s, the daemon made to let go of their
         streams, --settle s). Growth in MB. Run first, on the fresh daemon, so the first page's one-time costs
         count.

The daemon follows at most 16 event streams, and lets a page's go as soon as the page closes its connection (a
daemon built before that kept it until its second write to it failed: two events, or two keep-alive comments 15 s
apart). A page whose stream is refused (429) retries after 2, 4, 8 s… (its stand shows the status it asked for at
boot meanwhile). Each phase starts by making the daemon let go of the streams the phase before closed (four `repeat`
changes: four writes to every stream, for such an older daemon); the loads whose stream was refused are counted and
shown apart.

Browsers keep at most 6 HTTP/1.1 connections per host, and every page shown holds one for its event stream (a
hidden tab lets its stream go). So that every page receives every event for the memory figure, each page is a window
of its own (not a tab behind another), spread over browsers of at most --pages-per-browser windows (default 5: two
browsers for 10 pages).

--load N starts N `yes >/dev/null` processes for the whole run (killed at the end) to show how the figures move on
a busy machine.

Prints a table and one JSON line (also written to --json FILE). Exit status 0 when it ran (targets missed are
reported, not failures), 1 on an error. Needs: chromium, chromedriver (/usr/bin/chromedriver), Selenium 4 (python3-selenium or pip),
ffmpeg; fermatad built with the web remote (swift build, or -c release for figures).

If the fermatad given serves an app.js without the measuring hooks (built before them), the same hooks are put into
the page from outside (DevTools' Page.addScriptToEvaluateOnNewDocument wrapping EventSource's listeners), and the
output says so.
"""

import argparse
import json
import math
import os
import random
import select
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TARGETS = {
    "ready_ms": 300.0,        # first page load to interactive
    "tap_p99_ms": 100.0,      # a tap → audible change, 99th percentile
    "box_p99_ms": 100.0,      # a box event → the page, 99th percentile
    "first_page_kb": 60.0,    # compressed, the first page
    "rss_growth_mb": 5.0,     # with 10 pages open
}

# For a fermatad built before app.js had its hooks: the same two hooks, from outside the page.
SHIM = r"""
(function () {
  if (window.__fermataShim) return;
  window.__fermataShim = true;
  var arrivals = window.__fermataEvents = [];
  var add = EventSource.prototype.addEventListener;
  EventSource.prototype.addEventListener = function (type, fn, opts) {
    if (typeof fn === 'function' && type !== 'open' && type !== 'error') {
      var inner = fn;
      fn = function (e) {
        if (arrivals.push({ t: performance.timeOrigin + performance.now(), name: type }) > 100) arrivals.shift();
        var r = inner.apply(this, arguments);
        if (type === 'status' && !performance.getEntriesByName('fermata-ready').length) performance.mark('fermata-ready');
        return r;
      };
    }
    return add.call(this, type, fn, opts);
  };
})();
"""


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def pct(values, q):
    """Nearest-rank percentile (q in 0…100)."""
    v = sorted(values)
    if not v:
        return float("nan")
    k = max(0, min(len(v) - 1, math.ceil(q / 100.0 * len(v)) - 1))
    return v[k]


def summary(values):
    if not values:
        return {"n": 0}
    return {"n": len(values), "p50": round(pct(values, 50), 2), "p95": round(pct(values, 95), 2),
            "p99": round(pct(values, 99), 2), "max": round(max(values), 2), "min": round(min(values), 2)}


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


# ---------------------------------------------------------------- the library and the daemon

def make_library(folder, tracks, seconds):
    os.makedirs(folder, exist_ok=True)
    for i in range(1, tracks + 1):
        path = os.path.join(folder, "%02d - Etude %d.flac" % (i, i))
        subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi",
                        "-i", "sine=frequency=%d:sample_rate=44100:duration=%d" % (220 * i, seconds),
                        "-ac", "2", "-sample_fmt", "s16",
                        "-metadata", "title=Etude %d" % i, "-metadata", "artist=Web Bench",
                        "-metadata", "album=Benchmark Studies", "-metadata", "track=%d" % i,
                        "-metadata", "date=2026", "-metadata", "genre=Test", path], check=True)


class MPD:
    """A minimal MPD protocol client: commands, idle, status."""

    def __init__(self, port, timeout=10.0):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.buf = b""
        hello = self.line()
        if not hello.startswith("OK MPD"):
            raise RuntimeError("not an MPD server: %r" % hello)

    def line(self):
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise RuntimeError("MPD connection closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode("utf-8", "replace")

    def send(self, cmd):
        self.sock.sendall((cmd + "\n").encode())

    def answer(self):
        out = []
        while True:
            ln = self.line()
            if ln == "OK":
                return out
            if ln.startswith("ACK"):
                raise RuntimeError(ln)
            out.append(ln)

    def command(self, cmd):
        self.send(cmd)
        return self.answer()

    def status(self):
        return dict(ln.split(": ", 1) for ln in self.command("status") if ": " in ln)

    def readable(self, timeout):
        if self.buf:
            return True
        r, _, _ = select.select([self.sock], [], [], timeout)
        return bool(r)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class Idler:
    """An MPD client in `idle player`: the moment (time.time()) the player changed, then its state from `status`."""

    def __init__(self, port):
        self.mpd = MPD(port)
        self.idling = False

    def arm(self):
        """Enters `idle player` with nothing stale pending (changes from before are read and dropped)."""
        while True:
            if not self.idling:
                self.mpd.send("idle player")
                self.idling = True
            if not self.mpd.readable(0.01):
                return
            self.mpd.answer()          # a change from before this measurement
            self.idling = False

    def wait(self, expect, timeout=5.0):
        """Waits for the player's change to `expect` ("play"/"pause"): (time of the change line, status)."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            if not self.mpd.readable(max(0.0, deadline - time.time())):
                break
            ln = self.mpd.line()
            t = time.time()
            if ln.startswith("changed:"):
                self.mpd.answer()
                self.idling = False
                st = self.mpd.status()
                if st.get("state") == expect:
                    return t, st
                self.arm()
            elif ln == "OK":
                self.idling = False
                self.arm()
        raise RuntimeError("the player did not change to %s within %.0f s" % (expect, timeout))

    def close(self):
        self.mpd.close()


class Daemon:
    def __init__(self, binary, work, library, mpd_port, web_port):
        self.binary = binary
        self.work = work
        self.mpd_port = mpd_port
        self.web_port = web_port
        self.url = "http://127.0.0.1:%d/" % web_port
        os.makedirs(os.path.join(work, "state"), exist_ok=True)
        self.config = os.path.join(work, "fermata.toml")
        with open(self.config, "w") as f:
            f.write('[web]\nlisten = "127.0.0.1:%d"\n' % web_port)
        self.log = open(os.path.join(work, "daemon.log"), "w")
        self.proc = subprocess.Popen(
            [binary, "--music", library, "--state", os.path.join(work, "state"), "--output", "null",
             "--listen", "127.0.0.1:%d" % mpd_port, "--socket", os.path.join(work, "fermata.sock"),
             "--config", self.config, "--board", "off"],
            stdout=self.log, stderr=self.log)
        deadline = time.time() + 60
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError("fermatad exited (%s); see %s" % (self.proc.returncode, self.log.name))
            try:
                with urllib.request.urlopen(self.url + "api/session", timeout=2) as r:
                    r.read()
                MPD(mpd_port).close()
                break
            except (OSError, RuntimeError):
                if time.time() > deadline:
                    raise RuntimeError("fermatad did not answer within 60 s; see %s" % self.log.name)
                time.sleep(0.1)

    @property
    def pid(self):
        return self.proc.pid

    def memory(self):
        out = {}
        with open("/proc/%d/status" % self.pid) as f:
            for ln in f:
                k, _, v = ln.partition(":")
                if k in ("VmRSS", "RssAnon", "RssFile", "VmHWM"):
                    out[k] = int(v.split()[0]) / 1024.0   # MiB
        return out

    def event_streams(self):
        """Established TCP connections to the web port (each open page holds one for its event stream)."""
        try:
            out = subprocess.run(["ss", "-Htn", "state", "established", "( sport = :%d )" % self.web_port],
                                 capture_output=True, text=True, timeout=5).stdout
            return len([ln for ln in out.splitlines() if ln.strip()])
        except (OSError, subprocess.SubprocessError):
            return -1

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


# ---------------------------------------------------------------- browsers

class Browsers:
    """Headless Chromium through chromedriver; each browser its own new profile."""

    def __init__(self, chromedriver, chromium, work, shim):
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        self.webdriver = webdriver
        self.Service = Service
        self.chromedriver = chromedriver
        self.chromium = chromium
        self.work = work
        self.shim = shim
        self.open = []

    def new(self, perf_log=False):
        opts = self.webdriver.ChromeOptions()
        if self.chromium:
            opts.binary_location = self.chromium
        profile = tempfile.mkdtemp(prefix="profile-", dir=self.work)
        for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                  "--user-data-dir=" + profile, "--window-size=412,915", "--no-first-run",
                  "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--disable-background-timer-throttling",
                  "--disable-renderer-backgrounding", "--disable-backgrounding-occluded-windows"):
            opts.add_argument(a)
        if perf_log:
            opts.set_capability("goog:loggingPrefs", {"performance": "ALL"})
        driver = self.webdriver.Chrome(service=self.Service(self.chromedriver), options=opts)
        driver.set_script_timeout(30)
        driver.set_page_load_timeout(30)
        driver._bench_profile = profile
        self.prepare(driver)
        self.open.append(driver)
        return driver

    def prepare(self, driver):
        """Per tab, before it navigates: the hooks, when the served app.js lacks them."""
        if self.shim:
            driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": SHIM})

    def close(self, driver):
        try:
            driver.quit()
        except Exception:   # noqa: BLE001 — a browser already gone
            pass
        if driver in self.open:
            self.open.remove(driver)
        shutil.rmtree(driver._bench_profile, ignore_errors=True)

    def close_all(self):
        for d in list(self.open):
            self.close(d)


WAIT_READY = """
var done = arguments[arguments.length - 1], t0 = Date.now();
(function poll() {
  var m = performance.getEntriesByName('fermata-ready');
  if (m.length) {
    var nav = performance.getEntriesByType('navigation')[0];
    var res = performance.getEntriesByType('resource');
    var sum = function (k) { return res.reduce(function (a, r) { return a + (r[k] || 0); }, nav[k] || 0); };
    var ses = res.filter(function (r) { return /\/api\/session$/.test(r.name); })[0];
    var ev = (window.__fermataEvents || []).filter(function (e) { return e.name === 'status'; })[0];
    done({ ready: m[0].startTime, domInteractive: nav.domInteractive, domContentLoaded: nav.domContentLoadedEventStart,
           sessionStart: ses ? ses.startTime : null, sessionEnd: ses ? ses.responseEnd : null,
           documentEnd: nav.responseEnd, filesEnd: res.filter(function (r) { return /\.(css|js)$/.test(r.name); })
             .reduce(function (a, r) { return Math.max(a, r.responseEnd); }, 0),
           firstStatus: ev ? ev.t - performance.timeOrigin : null,
           transfer: sum('transferSize'), encoded: sum('encodedBodySize'), decoded: sum('decodedBodySize'),
           resources: res.map(function (r) { return [r.name, r.transferSize, r.encodedBodySize]; }),
           navTransfer: nav.transferSize, title: document.getElementById('s-title').textContent });
  } else if (Date.now() - t0 > 20000) done(null);
  else setTimeout(poll, 5);
})();
"""

# The first event `name` that arrived at or after `after` (ms since the epoch, the page's clock) and, for a status,
# says `state`: the daemon sends one more status 300 ms after a change, which may come just after the next tap.
WAIT_EVENT = """
var done = arguments[arguments.length - 1], t0 = Date.now(), name = arguments[0], after = arguments[1] || 0,
  state = arguments[2];
(function poll() {
  var a = window.__fermataEvents || [];
  for (var i = 0; i < a.length; i++) {
    if (a[i].name === name && a[i].t >= after && (!state || a[i].state === undefined || a[i].state === state)) {
      done(a[i].t);
      return;
    }
  }
  if (Date.now() - t0 > 5000) done(null); else setTimeout(poll, 2);
})();
"""


def wait_loaded(driver):
    """Waits for the load event and the late resources (icon, manifest) so that the byte count is whole."""
    driver.execute_async_script("""
var done = arguments[arguments.length - 1];
if (document.readyState === 'complete') setTimeout(done, 300);
else addEventListener('load', function () { setTimeout(done, 300); });
""")
    return driver.execute_script("""
var nav = performance.getEntriesByType('navigation')[0], res = performance.getEntriesByType('resource');
var sum = function (k) { return res.reduce(function (a, r) { return a + (r[k] || 0); }, nav[k] || 0); };
return { transfer: sum('transferSize'), encoded: sum('encodedBodySize'), decoded: sum('decodedBodySize'),
         resources: res.map(function (r) { return [r.name, r.transferSize, r.encodedBodySize]; }) };
""")


def devtools_stats(driver, origin):
    """From the DevTools Network domain, over every request to `origin` since the last call (the browser's own
    new-tab page left out): encodedDataLength summed (the event stream's bytes received so far included), the number
    of requests, and how many event streams were refused (429: the daemon's 16 streams taken)."""
    finished, received, urls, refused = {}, {}, {}, 0
    for entry in driver.get_log("performance"):
        m = json.loads(entry["message"])["message"]
        p = m.get("params", {})
        if m.get("method") == "Network.requestWillBeSent":
            if p["request"]["url"].startswith(origin):
                urls[p["requestId"]] = p["request"]["url"]
        elif m.get("method") == "Network.responseReceived":
            r = p.get("response", {})
            if r.get("url", "").startswith(origin) and r["url"].endswith("/api/events") and r.get("status") != 200:
                refused += 1
        elif m.get("method") == "Network.loadingFinished":
            finished[p["requestId"]] = p.get("encodedDataLength", 0)
        elif m.get("method") == "Network.dataReceived":
            received[p["requestId"]] = received.get(p["requestId"], 0) + p.get("encodedDataLength", 0)
    total = sum(finished.get(rid, received.get(rid, 0)) for rid in urls)
    return {"bytes": total, "requests": len(urls), "refused": refused}


def let_go(daemon):
    """Makes a daemon built before it noticed closed pages let go of their event streams: such a daemon kept a closed
    page's slot (of 16) until its second write to it failed: the next two events, or two keep-alive comments (15 s
    apart) when nothing happens. Without this, a phase right after many pages closed would meet refusals (429)
    that the phase before caused. Four `options` changes (repeat off and on, twice) are four writes to every
    stream; the queue repeats, as before."""
    mpd = MPD(daemon.mpd_port)
    try:
        for _ in range(2):
            for v in ("0", "1"):
                mpd.command("repeat " + v)
                time.sleep(0.15)
    finally:
        mpd.close()
    time.sleep(0.3)


def calibrate(driver, samples=25):
    """The page clock (performance.timeOrigin + performance.now(), ms) minus time.time(), from the quickest of
    `samples` round trips: (offset in ms, its uncertainty ±ms)."""
    best = None
    for _ in range(samples):
        t0 = time.time()
        p = driver.execute_script("return performance.timeOrigin + performance.now()")
        t1 = time.time()
        rtt = (t1 - t0) * 1000
        if best is None or rtt < best[1]:
            best = (p - (t0 + t1) * 500, rtt)
    return best[0], best[1] / 2


# ---------------------------------------------------------------- the measurements

def measure_load(args, daemon, browsers):
    cold, warm = [], []
    let_go(daemon)
    for i in range(args.cold):
        d = browsers.new(perf_log=True)
        try:
            d.get(daemon.url)
            r = d.execute_async_script(WAIT_READY)
            if r is None:
                raise RuntimeError("the page did not show the status within 20 s (cold load %d)" % (i + 1))
            whole = wait_loaded(d)
            r["transfer"], r["encoded"], r["decoded"] = whole["transfer"], whole["encoded"], whole["decoded"]
            r["resources"] = whole["resources"]
            dt = devtools_stats(d, daemon.url)
            r["devtools"], r["requests"], r["refused"] = dt["bytes"], dt["requests"], dt["refused"]
            cold.append(r)
            log("  cold %2d: ready %.1f ms, domInteractive %.1f ms, %d B transferred (%d B by DevTools, %d requests)%s"
                % (i + 1, r["ready"], r["domInteractive"], r["transfer"], r["devtools"], r["requests"],
                   ", event stream refused %d× (429)" % r["refused"] if r["refused"] else ""))
            if i == args.cold - 1 and args.warm:
                for j in range(args.warm):
                    time.sleep(args.reload_gap)
                    d.refresh()
                    w = d.execute_async_script(WAIT_READY)
                    if w is None:
                        raise RuntimeError("the page did not show the status within 20 s (reload %d)" % (j + 1))
                    whole = wait_loaded(d)
                    w["transfer"], w["encoded"] = whole["transfer"], whole["encoded"]
                    w["refused"] = devtools_stats(d, daemon.url)["refused"]
                    warm.append(w)
                    log("  warm %2d: ready %.1f ms, domInteractive %.1f ms, %d B transferred%s"
                        % (j + 1, w["ready"], w["domInteractive"], w["transfer"],
                           ", event stream refused %d× (429)" % w["refused"] if w["refused"] else ""))
        finally:
            browsers.close(d)

    def agg(rows, key):
        v = [r[key] for r in rows]
        return {"median": round(statistics.median(v), 1), "max": round(max(v), 1), "min": round(min(v), 1)} if v else {}

    def part(rows, keys):
        if not rows:
            return {}
        out = {k: agg(rows, k) for k in keys}
        clean = [r for r in rows if not r["refused"]]
        out["refused_loads"] = len(rows) - len(clean)
        out["ready_stream_accepted"] = agg(clean, "ready")
        return out

    steps = ("documentEnd", "filesEnd", "domInteractive", "domContentLoaded", "sessionStart", "sessionEnd",
             "firstStatus", "ready")
    out = {"cold": part(cold, ("ready", "domInteractive", "transfer", "encoded", "decoded", "devtools")),
           "cold_steps_median_ms": {k: round(statistics.median([r[k] for r in cold if r.get(k) is not None]), 1)
                                    for k in steps if any(r.get(k) is not None for r in cold)},
           "warm": part(warm, ("ready", "domInteractive", "transfer")),
           "reps": {"cold": len(cold), "warm": len(warm)}}
    if cold:
        out["resources"] = cold[-1]["resources"]
        out["first_cold_ready_ms"] = round(cold[0]["ready"], 1)
        out["cold_ready_ms"] = [round(r["ready"], 1) for r in cold]
    if warm:
        out["warm_ready_ms"] = [round(r["ready"], 1) for r in warm]
    return out


def stand_page(daemon, browsers):
    """A new browser on the stand, once it shows the status."""
    d = browsers.new()
    d.get(daemon.url)
    if d.execute_async_script(WAIT_READY) is None:
        raise RuntimeError("the page did not show the status")
    return d


def measure_tap(args, daemon, browsers):
    from selenium.webdriver.common.by import By
    let_go(daemon)
    d = stand_page(daemon, browsers)
    idler = Idler(daemon.mpd_port)
    try:
        if idler.mpd.status().get("state") != "play":
            MPD(daemon.mpd_port).command("play")
            time.sleep(0.3)
        d.execute_script("""
window.__benchClicks = [];
document.getElementById('b-play').addEventListener('click', function () {
  window.__benchClicks.push(performance.timeOrigin + performance.now());
}, true);""")
        button = d.find_element(By.ID, "b-play")
        offsets = [calibrate(d)]
        state = "play"
        changed, to_page = [], []
        for i in range(args.reps):
            expect = "pause" if state == "play" else "play"
            d.execute_script("window.__fermataEvents.length = 0")
            idler.arm()
            button.click()
            t_changed, _ = idler.wait(expect)
            t_page = d.execute_async_script(WAIT_EVENT, "status",
                                            d.execute_script("return window.__benchClicks.slice(-1)[0]"), expect)
            state = expect
            changed.append(t_changed)
            to_page.append(t_page)
            if (i + 1) % 50 == 0:
                log("  tap %d/%d" % (i + 1, args.reps))
            time.sleep(random.uniform(args.gap_min, args.gap_max))
        offsets.append(calibrate(d))
        clicks = d.execute_script("return window.__benchClicks")
        if len(clicks) != len(changed):
            raise RuntimeError("%d clicks recorded in the page for %d taps" % (len(clicks), len(changed)))
        offset = (offsets[0][0] + offsets[1][0]) / 2
        lat = [tc * 1000 - (c - offset) for c, tc in zip(clicks, changed)]
        page = [p - c for c, p in zip(clicks, to_page) if p is not None]
        return {"tap_to_player_ms": summary(lat), "tap_to_page_ms": summary(page),
                "clock_offset_ms": [round(o[0], 3) for o in offsets],
                "clock_uncertainty_ms": round(max(o[1] for o in offsets), 3),
                "missed_page_events": sum(1 for p in to_page if p is None)}
    finally:
        idler.close()
        browsers.close(d)


def measure_box(args, daemon, browsers):
    let_go(daemon)
    d = stand_page(daemon, browsers)
    idler = Idler(daemon.mpd_port)
    cmd = MPD(daemon.mpd_port)
    try:
        state = cmd.status().get("state")
        if state != "play":
            cmd.command("play")
            time.sleep(0.3)
            state = "play"
        offsets = [calibrate(d)]
        sent, server, arrived = [], [], []
        for i in range(args.reps):
            expect = "pause" if state == "play" else "play"
            d.execute_script("window.__fermataEvents.length = 0")
            idler.arm()
            t_send = time.time()
            cmd.command("pause 1" if expect == "pause" else "pause 0")
            t_changed, _ = idler.wait(expect)
            t_page = d.execute_async_script(WAIT_EVENT, "status", t_send * 1000 + offsets[0][0], expect)
            if t_page is None:
                raise RuntimeError("the page received no status event within 5 s (repetition %d)" % (i + 1))
            state = expect
            sent.append(t_send)
            server.append(t_changed)
            arrived.append(t_page)
            if (i + 1) % 50 == 0:
                log("  box %d/%d" % (i + 1, args.reps))
            time.sleep(random.uniform(args.gap_min, args.gap_max))
        offsets.append(calibrate(d))
        offset = (offsets[0][0] + offsets[1][0]) / 2
        lat = [(p - offset) - s * 1000 for s, p in zip(sent, arrived)]
        mpd = [(c - s) * 1000 for s, c in zip(sent, server)]
        return {"command_to_page_ms": summary(lat), "command_to_idle_client_ms": summary(mpd),
                "clock_offset_ms": [round(o[0], 3) for o in offsets],
                "clock_uncertainty_ms": round(max(o[1] for o in offsets), 3)}
    finally:
        cmd.close()
        idler.close()
        browsers.close(d)


def measure_rss(args, daemon, browsers):
    let_go(daemon)
    cmd = MPD(daemon.mpd_port)
    try:
        if cmd.status().get("state") != "play":
            cmd.command("play")
        time.sleep(args.settle)
        idle = daemon.memory()
        streams_before = daemon.event_streams()
        log("  idle, no page: VmRSS %.1f MiB, RssAnon %.1f MiB" % (idle["VmRSS"], idle["RssAnon"]))
        drivers, tabs = [], []
        per = max(1, args.pages_per_browser)
        for i in range(args.pages):
            if i % per == 0:
                drivers.append(browsers.new())
                d = drivers[-1]
            else:
                d = drivers[-1]
                d.switch_to.new_window("window")
                browsers.prepare(d)
            d.set_page_load_timeout(10)
            try:
                d.get(daemon.url)
            except Exception:   # noqa: BLE001 — a page waiting for a connection (past 6 per host) never loads
                log("  page %d did not load within 10 s" % (i + 1))
            d.set_page_load_timeout(30)
            tabs.append((d, d.current_window_handle))
        # which pages show the status (a page past the browser's 6 connections per host never loads)
        shown = 0
        for d, h in tabs:
            d.switch_to.window(h)
            d.set_script_timeout(5)
            try:
                if d.execute_async_script(WAIT_READY.replace("20000", "3000")) is not None:
                    shown += 1
            except Exception:   # noqa: BLE001 — a page still loading
                pass
            d.set_script_timeout(30)
            d.execute_script("window.__fermataEvents && (window.__fermataEvents.length = 0)")
        streams = daemon.event_streams()
        log("  %d pages in %d browsers: %d show the status; %d connections to the web port"
            % (args.pages, len(drivers), shown, streams))
        samples = []
        t_end = time.time() + args.rss_seconds
        state = "play"
        toggles = 0
        next_toggle = time.time() + 2
        while time.time() < t_end:
            if time.time() >= next_toggle:
                state = "pause" if state == "play" else "play"
                cmd.command("pause 1" if state == "pause" else "pause 0")
                toggles += 1
                next_toggle += 2
            samples.append(daemon.memory())
            time.sleep(0.5)
        if state != "play":
            cmd.command("pause 0")
            toggles += 1
        time.sleep(0.5)
        received = []
        for d, h in tabs:
            d.switch_to.window(h)
            try:
                received.append(d.execute_script(
                    "return (window.__fermataEvents || []).filter(function (e) { return e.name === 'status'; }).length"))
            except Exception:   # noqa: BLE001
                received.append(-1)
        opened = samples[-1]
        peak = {k: max(s[k] for s in samples) for k in ("VmRSS", "RssAnon")}
        for d in drivers:
            browsers.close(d)
        time.sleep(args.settle)
        closing = daemon.memory()
        let_go(daemon)
        time.sleep(args.settle)
        after = daemon.memory()
        log("  with pages: VmRSS %.1f (peak %.1f) MiB, RssAnon %.1f (peak %.1f) MiB; after closing: %.1f / %.1f MiB"
            % (opened["VmRSS"], peak["VmRSS"], opened["RssAnon"], peak["RssAnon"], after["VmRSS"], after["RssAnon"]))

        def r(x):
            return round(x, 2)
        return {"pages": args.pages, "browsers": len(drivers), "pages_showing_status": shown,
                "web_connections_open": streams, "web_connections_before": streams_before,
                "status_events_per_page": received, "toggles": toggles, "seconds": args.rss_seconds,
                "closed_streams_held_mib": {k: r(v) for k, v in closing.items()},
                "idle_mib": {k: r(v) for k, v in idle.items()}, "open_mib": {k: r(v) for k, v in opened.items()},
                "open_peak_mib": {k: r(v) for k, v in peak.items()}, "closed_mib": {k: r(v) for k, v in after.items()},
                "growth_mib": {"VmRSS": r(peak["VmRSS"] - idle["VmRSS"]), "RssAnon": r(peak["RssAnon"] - idle["RssAnon"])},
                "kept_after_close_mib": {"VmRSS": r(after["VmRSS"] - idle["VmRSS"]),
                                         "RssAnon": r(after["RssAnon"] - idle["RssAnon"])}}
    finally:
        cmd.close()


# ---------------------------------------------------------------- the report

def verdict(value, target):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return "ok" if value <= target else "MISSED"


def report(res):
    rows = []
    L = res.get("load")
    if L:
        for key, name in (("cold", "cold, a new browser profile"), ("warm", "warm, a reload")):
            c = L[key]
            if not c:
                continue
            n = L["reps"][key]
            rows.append(("first page → interactive, %s (median / max, n=%d)" % (name, n),
                         "%.0f / %.0f ms" % (c["ready"]["median"], c["ready"]["max"]), "≤ 300 ms",
                         verdict(c["ready"]["max"], TARGETS["ready_ms"])))
            if c["refused_loads"]:
                a = c["ready_stream_accepted"]
                rows.append(("  its event stream refused (429) in / ready without those (median / max)",
                             "%d of %d / %s" % (c["refused_loads"], n, "%.0f / %.0f ms" % (a["median"], a["max"])
                                                if a else "—"), "", verdict(a.get("max"), TARGETS["ready_ms"])
                             if a else ""))
            rows.append(("  domInteractive (median / max)",
                         "%.0f / %.0f ms" % (c["domInteractive"]["median"], c["domInteractive"]["max"]), "", ""))
        st = L.get("cold_steps_median_ms", {})
        if len(st) == 8:
            rows.append(("  cold, where the time goes (medians from navigation start, ms)",
                         "HTML in %.0f, CSS+JS in %.0f, domInteractive %.0f, DOMContentLoaded %.0f, /api/session "
                         "%.0f–%.0f, first status event %.0f, shown %.0f"
                         % tuple(st[k] for k in ("documentEnd", "filesEnd", "domInteractive", "domContentLoaded",
                                                 "sessionStart", "sessionEnd", "firstStatus", "ready")), "", ""))
        c, w = L["cold"], L["warm"]
        if c:
            kb = c["transfer"]["max"] / 1024
            rows.append(("bytes for the first page, cold (Resource Timing transferSize)",
                         "%.1f KB (bodies %.1f KB compressed, %.1f KB unpacked)"
                         % (kb, c["encoded"]["max"] / 1024, c["decoded"]["max"] / 1024), "≤ 60 KB",
                         verdict(kb, TARGETS["first_page_kb"])))
            rows.append(("  same, DevTools encodedDataLength (+ the event stream's first event)",
                         "%.1f KB" % (c["devtools"]["max"] / 1024), "", ""))
        if w:
            rows.append(("  bytes for a warm reload (304s)", "%.1f KB" % (w["transfer"]["median"] / 1024), "", ""))
    T = res.get("tap")
    if T:
        s = T["tap_to_player_ms"]
        rows.append(("tap → player state changed in the engine (p50 / p95 / p99 / max, n=%d)" % s["n"],
                     "%.1f / %.1f / %.1f / %.1f ms" % (s["p50"], s["p95"], s["p99"], s["max"]), "p99 ≤ 100 ms",
                     verdict(s["p99"], TARGETS["tap_p99_ms"])))
        s = T["tap_to_page_ms"]
        if s.get("n"):
            rows.append(("  tap → the page shows the new state",
                         "%.1f / %.1f / %.1f / %.1f ms" % (s["p50"], s["p95"], s["p99"], s["max"]), "", ""))
    B = res.get("box")
    if B:
        s = B["command_to_page_ms"]
        rows.append(("MPD command (a box event) → the page's status event (n=%d)" % s["n"],
                     "%.1f / %.1f / %.1f / %.1f ms" % (s["p50"], s["p95"], s["p99"], s["max"]), "p99 ≤ 100 ms",
                     verdict(s["p99"], TARGETS["box_p99_ms"])))
        s = B["command_to_idle_client_ms"]
        rows.append(("  same command → an MPD idle client told",
                     "%.1f / %.1f / %.1f / %.1f ms" % (s["p50"], s["p95"], s["p99"], s["max"]), "", ""))
    R = res.get("rss")
    if R:
        g = R["growth_mib"]
        rows.append(("fermatad RSS growth, %d pages open %d s (VmRSS / RssAnon, peak − idle)"
                     % (R["pages"], R["seconds"]),
                     "%.2f / %.2f MB (idle %.1f / %.1f)" % (g["VmRSS"], g["RssAnon"], R["idle_mib"]["VmRSS"],
                                                            R["idle_mib"]["RssAnon"]),
                     "≤ 5 MB", verdict(g["VmRSS"], TARGETS["rss_growth_mb"])
                     if R["pages_showing_status"] == R["pages"] else "INCOMPLETE"))
        k = R["kept_after_close_mib"]
        rows.append(("  kept after closing them and their streams let go (VmRSS / RssAnon)",
                     "%.2f / %.2f MB" % (k["VmRSS"], k["RssAnon"]), "", ""))
        rows.append(("  pages showing the status / receiving every event",
                     "%d of %d / %d of %d" % (R["pages_showing_status"], R["pages"],
                                              sum(1 for n in R["status_events_per_page"] if n >= R["toggles"]),
                                              R["pages"]), "", ""))
    w0 = max(len(r[0]) for r in rows) if rows else 10
    w1 = max(len(r[1]) for r in rows) if rows else 10
    print()
    print("%-*s  %-*s  %-13s %s" % (w0, "figure", w1, "measured", "target", ""))
    print("-" * (w0 + w1 + 24))
    for r in rows:
        print("%-*s  %-*s  %-13s %s" % (w0, r[0], w1, r[1], r[2], r[3]))
    print()
    print("MiB here and MB in the target: the same unit (2^20 bytes). 'Audible' = the player's state changed in the "
          "engine (status's state, set where the command is taken; the output thread applies it at its next period), "
          "with the null output: on a board the ALSA buffer adds period × periods (20 ms by default). A button on the "
          "box cannot be pressed here (no GPIO); its action takes the same change feed (IdleBroadcaster → WebEvents) "
          "as the MPD command measured.")


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Example: Tests/Tools/web-bench.py --load 2 --json /tmp/web-bench.json")
    ap.add_argument("--fermatad", help="the fermatad binary (default: the newer of .build/release/fermatad and "
                    ".build/debug/fermatad)")
    ap.add_argument("--tests", default="rss,load,tap,box",
                    help="which, comma-separated, in this order: rss, load, tap, box (default: all; rss first so "
                    "that its idle figure is a daemon no page has reached yet)")
    ap.add_argument("--cold", type=int, default=10, help="cold page loads, a new browser profile each (default 10)")
    ap.add_argument("--warm", type=int, default=20, help="warm reloads in the last cold load's browser (default 20)")
    ap.add_argument("--reload-gap", type=float, default=0.0,
                    help="pause before each warm reload, s (default 0: one after the other)")
    ap.add_argument("--reps", type=int, default=200, help="taps, and MPD commands, each (default 200)")
    ap.add_argument("--gap-min", type=float, default=0.05, help="least pause between repetitions, s (default 0.05)")
    ap.add_argument("--gap-max", type=float, default=0.15, help="most pause between repetitions, s (default 0.15)")
    ap.add_argument("--pages", type=int, default=10, help="pages open for the memory figure (default 10; the daemon "
                    "follows at most 16 event streams)")
    ap.add_argument("--pages-per-browser", type=int, default=5,
                    help="windows per browser (default 5: a browser keeps at most 6 connections per host, and each "
                    "page shown holds one for its event stream)")
    ap.add_argument("--rss-seconds", type=int, default=30, help="how long the pages stay open, s (default 30)")
    ap.add_argument("--settle", type=float, default=5.0, help="wait before the idle and after-close readings, s "
                    "(default 5)")
    ap.add_argument("--tracks", type=int, default=3, help="tracks in the generated library (default 3)")
    ap.add_argument("--seconds", type=int, default=600, help="length of each track, s (default 600: no track "
                    "change during a run)")
    ap.add_argument("--load", type=int, default=0, help="start N `yes >/dev/null` processes for the run (default 0)")
    ap.add_argument("--chromedriver", default="/usr/bin/chromedriver", help="default /usr/bin/chromedriver")
    ap.add_argument("--chromium", default=None, help="the browser binary (default: chromedriver's choice)")
    ap.add_argument("--work", help="scratch folder (default: a new temporary one, removed at the end)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch folder (the daemon's log is there)")
    ap.add_argument("--json", help="also write the JSON result to this file")
    ap.add_argument("--seed", type=int, default=1, help="random seed for the pauses between repetitions")
    args = ap.parse_args()
    random.seed(args.seed)
    tests = [t.strip() for t in args.tests.split(",") if t.strip()]
    for t in tests:
        if t not in ("rss", "load", "tap", "box"):
            ap.error("unknown test %r" % t)

    binary = args.fermatad
    if not binary:
        cands = [os.path.join(REPO, ".build", b, "fermatad") for b in ("release", "debug")]
        cands = [c for c in cands if os.path.exists(c)]
        if not cands:
            ap.error("no fermatad built: swift build -c release --product fermatad, or pass --fermatad")
        binary = max(cands, key=os.path.getmtime)
    binary = os.path.abspath(binary)
    build = "release" if "/release/" in binary else "debug" if "/debug/" in binary else "?"

    work = args.work or tempfile.mkdtemp(prefix="web-bench-")
    os.makedirs(work, exist_ok=True)
    burners, daemon, browsers = [], None, None
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    res = {"tool": "web-bench", "date": started, "fermatad": binary, "build": build,
           "binary_mtime": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(os.path.getmtime(binary))),
           "load": args.load, "cores": os.cpu_count(), "loadavg_start": os.getloadavg()[0],
           "command": " ".join([os.path.relpath(sys.argv[0], REPO) if sys.argv[0].startswith(REPO) else sys.argv[0]]
                               + sys.argv[1:])}
    code = 0
    try:
        for _ in range(args.load):
            burners.append(subprocess.Popen(["yes"], stdout=subprocess.DEVNULL))
        log("web-bench: %s build (%s), load %d, scratch %s" % (build, binary, args.load, work))
        library = os.path.join(work, "music")
        make_library(library, args.tracks, args.seconds)
        daemon = Daemon(binary, work, library, free_port(), free_port())
        mpd = MPD(daemon.mpd_port)
        mpd.command("update")
        deadline = time.time() + 60
        while "updating_db" in mpd.status() and time.time() < deadline:
            time.sleep(0.1)
        mpd.command("clear")
        mpd.command("add /")
        mpd.command("repeat 1")
        mpd.command("play")
        st = mpd.status()
        mpd.close()
        if st.get("state") != "play" or int(st.get("playlistlength", 0)) != args.tracks:
            raise RuntimeError("not playing the generated queue: %r" % st)
        with urllib.request.urlopen(daemon.url + "app.js", timeout=5) as r:
            app_js = r.read().decode("utf-8", "replace")
        shim = "fermata-ready" not in app_js or "__fermataEvents" not in app_js
        res["hooks"] = "injected (the fermatad predates app.js's hooks)" if shim else "app.js"
        if shim:
            log("web-bench: this fermatad's app.js has no measuring hooks: they are injected through DevTools")
        browsers = Browsers(args.chromedriver, args.chromium, work, shim)
        for t in tests:
            log("web-bench: %s" % t)
            if t == "rss":
                res["rss"] = measure_rss(args, daemon, browsers)
            elif t == "load":
                res["load"] = measure_load(args, daemon, browsers)
            elif t == "tap":
                res["tap"] = measure_tap(args, daemon, browsers)
            elif t == "box":
                res["box"] = measure_box(args, daemon, browsers)
        res["loadavg_end"] = os.getloadavg()[0]
        res["daemon_end_mib"] = {k: round(v, 2) for k, v in daemon.memory().items()}
        print("web-bench: %s build %s (built %s), %s, --load %d, hooks from %s, load average %.1f → %.1f"
              % (build, binary, res["binary_mtime"], started, args.load, res["hooks"], res["loadavg_start"],
                 res["loadavg_end"]))
        report(res)
    except Exception as e:   # noqa: BLE001 — reported, with what was measured so far
        log("web-bench: error: %s" % e)
        res["error"] = str(e)
        code = 1
    finally:
        if browsers:
            browsers.close_all()
        if daemon:
            daemon.stop()
        for p in burners:
            p.kill()
            p.wait()
        if not args.keep and not args.work:
            shutil.rmtree(work, ignore_errors=True)
    line = json.dumps(res, sort_keys=True)
    print(line)
    if args.json:
        with open(args.json, "w") as f:
            f.write(line + "\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
