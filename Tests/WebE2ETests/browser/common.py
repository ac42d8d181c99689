"""What every web end-to-end script shares: the run's settings, the checks it prints as one JSON line, a raw MPD
client, headless Chromium through Selenium (Debian's chromium, chromium-driver and python3-selenium), and waits that
end on a condition.

A script is run as `python3 SCRIPT.py SETTINGS_JSON` by the Swift suite (Tests/WebE2ETests). SETTINGS_JSON holds at
least `base` (the page's URL, ending in /), `mpd_port` and `stall` (seconds with nothing new before a wait gives up:
a hang detector, never a bound on how long the machine may take). The script ends by printing one line of JSON:

    {"script": NAME, "ok": BOOL, "checks": [{"name": ..., "ok": ..., "detail": ...}], "timings": {...}, ...}

and exits 0 (the Swift test asserts on the checks), or 2 when it could not run at all (the last line says why).
"""
import json
import os
import socket
import sys
import time
import traceback
import urllib.error
import urllib.request


class Settings(dict):
    def __getattr__(self, key):
        return self[key]


def settings():
    return Settings(json.loads(sys.argv[1]) if len(sys.argv) > 1 else {})


# ---------------------------------------------------------------- results

class Report:
    """The checks of one script; `emit` prints them as the final JSON line."""

    def __init__(self, script):
        self.script = script
        self.checks = []
        self.timings = {}
        self.info = {}
        self.started = time.monotonic()

    def check(self, name, ok, detail=""):
        self.checks.append({"name": name, "ok": bool(ok), "detail": str(detail)[:2000]})
        print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + str(detail)[:500]), file=sys.stderr, flush=True)
        return bool(ok)

    def time(self, name, seconds):
        self.timings[name] = round(seconds, 3)

    def emit(self):
        self.timings["total"] = round(time.monotonic() - self.started, 3)
        ok = bool(self.checks) and all(c["ok"] for c in self.checks)
        print(json.dumps({"script": self.script, "ok": ok, "checks": self.checks, "timings": self.timings,
                          "info": self.info}), flush=True)


def main(script, body):
    """Runs body(settings, report), turning an exception into a failed check; always prints the JSON line. Waits
    first until the web remote answers at `base` (it starts beside the MPD port, which the harness waited for)."""
    report = Report(script)
    s = settings()
    try:
        if s.get("base"):
            wait_for(lambda: http("GET", s.base.rstrip("/") + "/api/session", timeout=s.get("stall", 120))[0] > 0,
                     "the web remote at %s" % s.base, s.get("stall", 120), poll=0.1)
        body(s, report)
    except Exception as e:  # noqa: BLE001 - every failure must end in the JSON line
        report.check("no exception", False, "".join(traceback.format_exception(type(e), e, e.__traceback__))[-3000:])
    finally:
        for d in list(DRIVERS):
            try:
                d.quit()
            except Exception:  # noqa: BLE001
                pass
    report.emit()
    sys.exit(0)


# ---------------------------------------------------------------- waits

class Timeout(Exception):
    pass


def wait_for(condition, what, stall, poll=0.05):
    """Polls `condition` until it returns something truthy (returned); raises Timeout after `stall` seconds without
    it: a hang detector (the suite's Patience.stallSeconds), not a bound on the machine's speed."""
    deadline = time.monotonic() + stall
    last = None
    while True:
        try:
            value = condition()
        except Exception as e:  # noqa: BLE001 - a stale element, a refused connection: try again
            value, last = None, e
        if value:
            return value
        if time.monotonic() >= deadline:
            raise Timeout("waited %d s for %s%s" % (stall, what, " (last error: %r)" % last if last else ""))
        time.sleep(poll)


def eventually(report, name, condition, stall, detail=lambda: ""):
    """A check that holds once `condition` does: records how long it took; False (a failed check) after `stall`."""
    start = time.monotonic()
    try:
        wait_for(condition, name, stall)
    except Timeout as e:
        d = detail()
        return report.check(name, False, "%s%s" % (e, "; " + str(d) if d else ""))
    report.time(name, time.monotonic() - start)
    return report.check(name, True)


# ---------------------------------------------------------------- MPD

class MPD:
    """One connection to fermatad's MPD port: `command` answers (dict of the first value of each key, list of pairs,
    ACK text or None); `ok` raises on an ACK."""

    def __init__(self, port=None, host="127.0.0.1", timeout=120, unix=None):
        self.address, self.unix, self.timeout = (host, port), unix, timeout
        self.connect()

    def connect(self):
        if self.unix:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.settimeout(self.timeout)
            self.sock.connect(self.unix)
        else:
            self.sock = socket.create_connection(self.address, timeout=self.timeout)
        self.file = self.sock.makefile("rwb")
        greeting = self.file.readline().decode()
        if not greeting.startswith("OK MPD"):
            raise OSError("not an MPD greeting: %r" % greeting)

    def command(self, line):
        try:
            return self.exchange(line)
        except OSError:
            # The daemon closes a connection idle for a minute (as MPD does): once more on a new one.
            self.close()
            self.connect()
            return self.exchange(line)

    def exchange(self, line):
        self.file.write((line + "\n").encode())
        self.file.flush()
        pairs, ack = [], None
        while True:
            raw = self.file.readline()
            if not raw:
                raise OSError("MPD closed the connection after %r" % line)
            text = raw.decode("utf-8", "replace").rstrip("\n")
            if text == "OK":
                break
            if text.startswith("ACK"):
                ack = text
                break
            key, _, value = text.partition(": ")
            pairs.append((key, value))
        first = {}
        for k, v in pairs:
            first.setdefault(k, v)
        return first, pairs, ack

    def ok(self, line):
        first, _, ack = self.command(line)
        if ack:
            raise RuntimeError("%s: %s" % (line, ack))
        return first

    def pairs(self, line):
        _, pairs, ack = self.command(line)
        if ack:
            raise RuntimeError("%s: %s" % (line, ack))
        return pairs

    def all(self, line, key):
        return [v for k, v in self.pairs(line) if k == key]

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def wait_scan(mpd, stall):
    """`update`, then waits until `updating_db` has gone from `status` (progress: the library's song count)."""
    mpd.ok("update")
    deadline = time.monotonic() + stall
    last = None
    while "updating_db" in mpd.ok("status"):
        songs = mpd.ok("stats").get("songs")
        if songs != last:
            last, deadline = songs, time.monotonic() + stall
        if time.monotonic() >= deadline:
            raise Timeout("the scan made no progress for %d s" % stall)
        time.sleep(0.1)


# ---------------------------------------------------------------- HTTP

def http(method, url, body=None, headers=None, timeout=120):
    """One request: (status, headers dict, body bytes); never raises on an HTTP status."""
    data = None
    h = dict(headers or {})
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        h.setdefault("Content-Type", "application/json")
    request = urllib.request.Request(url, data=data, method=method, headers=h)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def api_json(base, path, method="GET", body=None, headers=None):
    h = {"X-Fermata-Request": "1"} if method != "GET" else {}
    h.update(headers or {})
    status, _, data = http(method, base.rstrip("/") + path, body, h)
    try:
        return status, json.loads(data) if data else None
    except ValueError:
        return status, data


# ---------------------------------------------------------------- the browser

DRIVERS = []

# Installed before the page's own scripts (DevTools, so the page's content security policy does not apply): every
# fetch of /api/ is recorded with its status and the length of the longest list in its JSON answer, for the checks
# that no answer carried more than one page.
RECORDER = r"""
(function () {
  var seen = window.__api = [];
  var real = window.fetch;
  function longest(v) {
    var n = 0, k;
    if (Array.isArray(v)) { n = v.length; v.forEach(function (x) { n = Math.max(n, longest(x)); }); }
    else if (v && typeof v === 'object') for (k in v) n = Math.max(n, longest(v[k]));
    return n;
  }
  window.fetch = function (input, init) {
    var url = typeof input === 'string' ? input : input.url, method = (init && init.method) || 'GET';
    return real.apply(this, arguments).then(function (r) {
      var entry = { url: url, method: method, status: r.status, items: 0, bytes: 0 };
      seen.push(entry);
      if ((r.headers.get('content-type') || '').indexOf('json') >= 0) {
        r.clone().text().then(function (t) {
          entry.bytes = t.length;
          try { entry.items = longest(JSON.parse(t)); } catch (e) { entry.items = -1; }
        });
      }
      return r;
    });
  };
})();
"""


def browser(width=390, height=844, scheme="light", mobile=True, record=True):
    """A headless Chromium (Debian's /usr/bin/chromium through /usr/bin/chromedriver) at width x height CSS pixels
    with prefers-color-scheme `scheme`; `record`: the fetch recorder above."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
              "--lang=en-GB", "--no-first-run", "--disable-extensions", "--mute-audio",
              "--window-size=%d,%d" % (max(width, 500), max(height, 500))):
        options.add_argument(a)
    options.binary_location = "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    DRIVERS.append(driver)
    driver.set_page_load_timeout(300)
    driver.set_script_timeout(300)
    emulate(driver, width, height, scheme, mobile)
    if record:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORDER})
    return driver


def emulate(driver, width, height, scheme, mobile=True):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": mobile})
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                           {"media": "screen", "features": [{"name": "prefers-color-scheme", "value": scheme}]})


def console_errors(driver):
    """The page's console errors and warnings so far (failed requests the test made on purpose are the caller's)."""
    out = []
    for e in driver.get_log("browser"):
        if e.get("level") in ("SEVERE", "WARNING"):
            out.append(e.get("message", ""))
    return out


def js(driver, script, *args):
    return driver.execute_script(script, *args)


def visible(driver, css):
    """Whether the element is rendered (position: fixed ones too, which have no offsetParent)."""
    return js(driver, "var e = document.querySelector(arguments[0]); return !!(e && e.getClientRects().length "
                      "&& getComputedStyle(e).visibility !== 'hidden');", css)


def text(driver, css):
    """The element's text (no-break spaces as spaces), or None."""
    return js(driver, "var e = document.querySelector(arguments[0]); "
                      "return e ? e.textContent.replace(/\\u00a0/g, ' ') : null;", css)


def click(driver, css_or_element):
    """Clicks like a finger: scrolls the element into view first, then a real (WebDriver) click."""
    from selenium.webdriver.common.by import By
    e = driver.find_element(By.CSS_SELECTOR, css_or_element) if isinstance(css_or_element, str) else css_or_element
    js(driver, "arguments[0].scrollIntoView({block: 'center'});", e)
    e.click()
    return e


def by_label(driver, label, tag="button"):
    """The first visible element with this aria-label."""
    from selenium.webdriver.common.by import By
    for e in driver.find_elements(By.CSS_SELECTOR, '%s[aria-label="%s"]' % (tag, label.replace('"', '\\"'))):
        if e.is_displayed():
            return e
    return None


def page_ready(driver, stall):
    """Waits until the page has its session and the first `status` event (F.S set by the event stream)."""
    wait_for(lambda: js(driver, "return !!(window.F && F.S && F.role && F.role !== 'none');"),
             "the page's first status event", stall)


def api_log(driver):
    return js(driver, "return window.__api || [];") or []


def shot(driver, path, full=False):
    """A PNG of the viewport, or (full) of the whole page up to 4000 px."""
    import base64
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if full:
        m = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
        h = min(4000, int(m["cssContentSize"]["height"]))
        w = int(m["cssLayoutViewport"]["clientWidth"])
        r = driver.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": w, "height": h, "scale": 1}})
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))
    else:
        driver.save_screenshot(path)
    return path
