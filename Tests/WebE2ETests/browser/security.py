#!/usr/bin/env python3
"""Scenario f: the web remote from another address, run inside a network namespace (netns.py) so that fermatad sees
a peer that is not loopback. Without a password: the login page says how to set one, the API answers 401, a login
503. After `fermata web password` (owner) and `--guest`: a wrong password is refused (the page says so; 401); the
owner logs in and gets the stand; with the owner's session a change without X-Fermata-Request, from another Origin or
marked cross-site is 403; the session cookie is HttpOnly and SameSite=Strict; logging out ends it. The guest's
password gives the guest's controls only (play, pause, skip, volume) and the API refuses the rest (403).

Settings: base (http://ADDRESS:PORT/ of fermatad's web remote), mpd_port is not used (MPD stays on loopback, outside
the namespace), fermata (the CLI), socket (fermatad's Unix socket), stall, album.
"""
import subprocess

from common import MPD, quote, browser, by_label, click, console_errors, eventually, http, js, main, text, visible, wait_for

OWNER, GUEST = "owner-secret-1", "guest-secret-2"


def run(s, report):
    stall = s.stall
    base = s.base.rstrip("/")
    origin = base

    def call(method, path, body=None, cookie=None, **headers):
        h = dict(headers)
        if cookie:
            h["Cookie"] = "fermata_session=" + cookie
        status, _, data = http(method, base + path, body, h)
        return status, data

    # no password set yet
    status, data = call("GET", "/api/session")
    report.check("no password: GET /api/session says role none, login required, no password set",
                 status == 200 and b'"role":"none"' in data and b'"login_required":true' in data
                 and b'"password_set":false' in data, (status, data))
    report.check("no password: GET /api/status is 401", call("GET", "/api/status")[0] == 401, call("GET", "/api/status"))
    report.check("no password: GET /api/queue is 401", call("GET", "/api/queue")[0] == 401)
    report.check("no password: POST /api/login is 503 (none set)",
                 call("POST", "/api/login", {"password": "whatever-1"}, **{"X-Fermata-Request": "1"})[0] == 503)
    report.check("the page itself is served without a session", call("GET", "/")[0] == 200)

    d = browser(390, 844, "light")
    d.get(s.base)
    eventually(report, "no password: the page shows the login page saying how to set one",
               lambda: visible(d, "#login") and "fermata web password" in (text(d, "#login-msg") or "")
               and not visible(d, "#pw"), stall, lambda: text(d, "#login"))
    report.check("no password: the stand is not shown", not visible(d, "#pad") or visible(d, "#login"))

    # the passwords, through the Unix socket: `fermata web password` (one line on its standard input); should it fail,
    # that is recorded and the protocol command it sends (`webpassword ROLE PASSWORD`, Unix socket only) sets them,
    # so that the rest of the scenario still runs
    for role, password, extra in (("owner", OWNER, []), ("guest", GUEST, ["--guest"])):
        r = subprocess.run([s.fermata, "web", "password"] + extra + ["--socket", s.socket], input=password + "\n",
                           capture_output=True, text=True, timeout=stall)
        if not report.check("fermata web password %s: exit 0" % " ".join(extra), r.returncode == 0,
                            (r.returncode, r.stdout, r.stderr[-600:])):
            MPD(unix=s.socket).ok("webpassword %s %s" % (role, quote(password)))

    # a wrong password
    status, data = call("POST", "/api/login", {"password": "wrong-password"}, **{"X-Fermata-Request": "1"})
    report.check("a wrong password is refused (401)", status == 401, (status, data))
    d.get(s.base)
    wait_for(lambda: visible(d, "#pw"), "the password field", stall)
    d.find_element("css selector", "#pw").send_keys("wrong-password")
    click(d, "#login-form button[type=submit]")
    eventually(report, "a wrong password: the page says so and stays on the login",
               lambda: "wrong password" in (text(d, "#login-err") or "") and visible(d, "#login"), stall,
               lambda: text(d, "#login-err"))

    # the owner
    d.find_element("css selector", "#pw").send_keys(OWNER)
    click(d, "#login-form button[type=submit]")
    eventually(report, "owner: logged in, the stand with every control",
               lambda: not visible(d, "#login") and visible(d, "#pad") and visible(d, "#b-la") and visible(d, "#nav")
               and js(d, "return F.role === 'owner' && !!F.S"), stall, lambda: (text(d, "#login-err"), js(d, "return F.role")))
    cookies = {c["name"]: c for c in d.get_cookies()}
    session = cookies.get("fermata_session", {})
    report.check("the session cookie is HttpOnly and SameSite=Strict",
                 session.get("httpOnly") is True and session.get("sameSite") == "Strict", session)
    report.check("the page's script cannot read the cookie", "fermata_session" not in js(d, "return document.cookie"))
    cookie = session.get("value", "")
    report.check("owner's session: GET /api/status is 200", call("GET", "/api/status", cookie=cookie)[0] == 200)
    report.check("owner's session: GET /api/queue is 200", call("GET", "/api/queue", cookie=cookie)[0] == 200)
    volume = {"action": "volume", "value": 30}
    status, data = call("POST", "/api/control", volume, cookie=cookie)
    report.check("owner's session: a POST without X-Fermata-Request is 403", status == 403, (status, data))
    status, data = call("POST", "/api/control", volume, cookie=cookie, **{"X-Fermata-Request": "1",
                                                                         "Origin": "http://evil.example"})
    report.check("owner's session: a POST from another Origin is 403", status == 403, (status, data))
    status, data = call("POST", "/api/control", volume, cookie=cookie, **{"X-Fermata-Request": "1",
                                                                         "Sec-Fetch-Site": "cross-site"})
    report.check("owner's session: a POST marked Sec-Fetch-Site: cross-site is 403", status == 403, (status, data))
    status, data = call("POST", "/api/control", volume, cookie=cookie, **{"X-Fermata-Request": "1", "Origin": origin})
    report.check("owner's session: the same POST with the header and this box's Origin is 204", status == 204,
                 (status, data))
    fetched = js(d, "return fetch('/api/control', {method: 'POST', credentials: 'same-origin', headers: "
                    "{'Content-Type': 'application/json'}, body: JSON.stringify({action: 'volume', value: 31})})"
                    ".then(r => r.status)")
    report.check("the browser's own POST without X-Fermata-Request is 403", fetched == 403, fetched)
    report.check("no session: GET /api/status is still 401", call("GET", "/api/status")[0] == 401)
    forged = "0" * 32 + "." + "0" * 64
    report.check("a forged session cookie: 401", call("GET", "/api/status", cookie=forged)[0] == 401)

    # logging out ends the session
    d.get(s.base + "#box")
    click(d, wait_for(lambda: by_label(d, "Log out"), "the Log out button on the box page", stall))
    eventually(report, "log out: the login page again", lambda: visible(d, "#login") and visible(d, "#pw"), stall)
    report.check("log out: the old cookie is refused (401)", call("GET", "/api/status", cookie=cookie)[0] == 401)

    # the guest
    d.delete_all_cookies()
    d.get(s.base + "#library")
    wait_for(lambda: visible(d, "#pw"), "the password field", stall)
    d.find_element("css selector", "#pw").send_keys(GUEST)
    click(d, "#login-form button[type=submit]")
    eventually(report, "guest: logged in as the guest",
               lambda: not visible(d, "#login") and js(d, "return F.role === 'guest' && !!F.S"), stall,
               lambda: js(d, "return F.role"))
    shown = js(d, "return [...document.querySelectorAll('#pad button')].filter(b => b.offsetParent)"
                  ".map(b => b.dataset.a + (b.dataset.v ? b.dataset.v : ''))")
    report.check("guest: only play/pause, previous/next and the volume are shown",
                 sorted(shown) == sorted(["previous", "toggle", "next", "volume_by-5", "volume_by5"]), shown)
    report.check("guest: no page other than the stand (the nav is hidden, #library shows the stand)",
                 not visible(d, "#nav") and visible(d, "#v-stand") and not visible(d, "#v-library"))
    guest = {c["name"]: c for c in d.get_cookies()}.get("fermata_session", {}).get("value", "")
    h = {"X-Fermata-Request": "1", "Origin": origin}
    status, data = call("POST", "/api/control", {"action": "volume_by", "value": -1}, cookie=guest, **h)
    report.check("guest: the volume is allowed (204)", status == 204, (status, data))
    for action in ("loop_a", "tempo_by", "again", "section_save", "metronome"):
        status, data = call("POST", "/api/control", {"action": action, "value": 5}, cookie=guest, **h)
        report.check("guest: %s is refused (403)" % action, status == 403, (status, data))
    for method, path, body in (("GET", "/api/queue", None), ("GET", "/api/library/artists", None),
                               ("GET", "/api/cards", None), ("GET", "/api/box", None),
                               ("POST", "/api/queue", {"uris": [s.album]}), ("DELETE", "/api/queue", None),
                               ("POST", "/api/scan", {}), ("GET", "/api/practice", None),
                               ("GET", "/api/recording", None), ("POST", "/api/recording", {"on": True}),
                               ("GET", "/api/takes", None), ("DELETE", "/api/takes/1", None),
                               ("POST", "/api/takes/1/play", {"mode": "alone"})):
        status, data = call(method, path, body, cookie=guest, **h)
        report.check("guest: %s %s is refused (403)" % (method, path), status == 403, (status, data))

    errors = [e for e in console_errors(d) if " 401 " not in e and " 403 " not in e and "401 (Unauthorized)" not in e
              and "403 (Forbidden)" not in e]
    report.check("no console errors (but the refusals this test asked for)", not errors, errors)


if __name__ == "__main__":
    main("security", run)
