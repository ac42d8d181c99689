#!/usr/bin/env python3
"""Scenario g: screenshots of every page — #stand, #library, #queue, #practice, #cards, #box and the login page — on
a phone (390x844) and a tablet (1024x768), light and dark (prefers-color-scheme through DevTools' emulation), named
{phone,tablet}-{light,dark}-{page}.png in the folder `shots`. The box is set up to look used: an album playing in a
section of 4 passes (the second on the phone's light stand, the README's picture), tempo 90 %, key -2, a beat,
sections, a queued section, a saved playlist, practice time, a learned and an unknown card. Checks what a machine can
see (nothing wider than the screen, the stand's controls at least 44 px, no console errors); a person looks at the
pictures.

The login page needs an address that is not loopback: fermatad listens on 0.0.0.0 and the page is opened at this
machine's own address (the one its default route leaves from); without one, those shots are left out (info says so).

Settings: base (loopback), web_port, mpd_port, socket, stall, shots.
"""
import os
import secrets
import socket
import time

from common import MPD, browser, console_errors, emulate, js, main, page_ready, quote, shot, wait_for

SIZES = [("phone", 390, 844), ("tablet", 1024, 768)]
SCHEMES = ["light", "dark"]
PAGES = ["stand", "library", "queue", "practice", "cards", "box"]
ONE = "Clara Brandt/Études for Strings/01 Étude No. 1 in E minor.wav"
# Elements that reach past the right edge of the screen and are not clipped by an ancestor (the bar's playhead is).
WIDE = '''
function clipped(e) {
  for (var p = e.parentElement; p && p !== document.body; p = p.parentElement) {
    var o = getComputedStyle(p);
    if ((o.overflowX !== 'visible' || o.overflow === 'hidden') && p.getBoundingClientRect().right <= innerWidth + 1) return true;
  }
  return false;
}
return [...document.querySelectorAll('body *')].filter(e => e.getClientRects().length && !e.closest('#toast') &&
  e.getBoundingClientRect().right > innerWidth + 1 && !clipped(e))
  .map(e => (e.id || e.className || e.tagName) + ' ' + Math.round(e.getBoundingClientRect().right)).slice(0, 5);
'''


def own_address():
    """This machine's address on its default route (no packet is sent), or None."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))
            address = s.getsockname()[0]
        return None if address.startswith("127.") else address
    except OSError:
        return None


def set_up(mpd, stall):
    mpd.ok("clear")
    mpd.ok('add "Clara Brandt/Études for Strings"')
    mpd.ok('add "The Riverside Trio/Slow Blues"')
    mpd.ok("repeat 1")
    mpd.ok("setvol 70")
    mpd.ok("play 0")
    wait_for(lambda: mpd.ok("status").get("state") == "play", "playing", stall)
    mpd.ok("bpm 96")
    mpd.ok('section_add "Opening" 0 16')
    mpd.ok('section_add "Chorus" 24 40 4 90')
    mpd.ok('section_add "Coda, the hard run" 150 190 2 80')
    mpd.ok("transpose -2")
    mpd.ok("section_queue %s Chorus" % quote(ONE))
    mpd.command('rm "Tuesday practice"')
    mpd.ok('save "Tuesday practice"')
    mpd.ok("cardread 04A1B2C3")
    mpd.ok('cardlearn "album:Slow Blues"')
    mpd.ok('cardassign 0001234567 "album:Études for Strings" 60')
    mpd.ok("cardread 0BADCAFE")


def alive(mpd, stall, second=False):
    """The Chorus section playing, in the middle of a pass (`second`: its second or third, for the README's picture);
    played again from its start whenever that moment was missed (a loaded machine's poll may come late)."""
    mpd.ok("section_play 2")
    passes = ("2", "3") if second else ("1", "2", "3")

    def there():
        loop, elapsed = mpd.ok("loop_status"), float(mpd.ok("status").get("elapsed", "0"))
        if loop.get("loop_pass") in passes and 28 <= elapsed <= 37:
            return True
        if loop.get("loop_pass") not in ("1", "2", "3"):
            mpd.ok("section_play 2")
        return False
    wait_for(there, "the middle of a pass of the section", stall)


def run(s, report):
    mpd = MPD(s.mpd_port)
    stall = s.stall
    out = s.shots
    os.makedirs(out, exist_ok=True)
    set_up(mpd, stall)
    # practice time: the section's passes are counted; the practice page shows them
    alive(mpd, stall, second=True)

    d = browser(390, 844, "light")
    d.get(s.base + "#stand")
    page_ready(d, stall)
    written = []
    problems = []
    for size, w, h in SIZES:
        for scheme in SCHEMES:
            emulate(d, w, h, scheme)
            for page in PAGES:
                if page == "stand":
                    alive(mpd, stall, second=(size, scheme) == ("phone", "light"))
                js(d, "location.hash = arguments[0]", "#" + page)
                ready = {
                    "stand": "return F.S && F.S.section && /pass [123]/.test(document.getElementById('s-sec').textContent)",
                    "library": "return document.querySelectorAll('#v-library ul.list > li:not(.more)').length >= 8",
                    "queue": "return document.querySelectorAll('#v-queue ul.list > li[data-id]').length >= 7 && "
                             "document.querySelectorAll('#v-queue ul.list')[1].children.length >= 1",
                    "practice": "return document.querySelectorAll('#v-practice svg.chart rect.b').length >= 1 && "
                                "document.querySelectorAll('#v-practice ul.list li').length >= 3 && "
                                "document.getElementById('rec-say').textContent.length > 0",
                    "cards": "return document.querySelectorAll('#v-cards ul.list li').length >= 3",
                    "box": "return document.querySelectorAll('#v-box .fd').length >= 2",
                }[page]
                wait_for(lambda: js(d, ready), "the %s page filled in (%s %s)" % (page, size, scheme), stall)
                js(d, "window.scrollTo(0, 0)")
                time.sleep(0.3)  # the layout settles (fonts, the chart's width)
                name = "%s-%s-%s.png" % (size, scheme, page)
                written.append(shot(d, os.path.join(out, name), full=(size == "phone" and page != "stand")))
                wide = js(d, WIDE)
                if wide:
                    problems.append((name, "wider than the screen", wide))
                if page == "stand":
                    small = js(d, "return [...document.querySelectorAll('#pad button')].filter(b => b.offsetParent)"
                                  ".map(b => [b.getAttribute('aria-label'), Math.round(b.getBoundingClientRect().width),"
                                  " Math.round(b.getBoundingClientRect().height)]).filter(x => x[1] < 44 || x[2] < 44)")
                    if small:
                        problems.append((name, "controls under 44 px", small))
    report.check("nothing is wider than the screen, no stand control under 44 px", not problems, problems)
    errors = console_errors(d)
    report.check("no console errors", not errors, errors)

    # the login page, from this machine's own address (not loopback: a login is needed): first as it is before any
    # password is set, then (the password set through the Unix socket) the form
    address = own_address()
    if address is None:
        report.info["login"] = "no address but loopback on this machine: no login screenshots"
    else:
        login = "http://%s:%d/" % (address, s.web_port)

        def login_shot(name, form):
            d.delete_all_cookies()
            d.get(login)
            wait_for(lambda: js(d, "var l = document.getElementById('login'); return l && !l.hidden && "
                                   "document.getElementById('login-msg').textContent.length > 0 && "
                                   "!!document.getElementById('pw').getClientRects().length === arguments[0]", form),
                     "the login page", stall)
            time.sleep(0.3)
            written.append(shot(d, os.path.join(out, name)))
        emulate(d, 390, 844, "light")
        login_shot("phone-light-login-nopassword.png", False)
        MPD(unix=s.socket).ok("webpassword owner %s" % quote(secrets.token_hex(16)))  # nobody's to guess
        for size, w, h in SIZES:
            for scheme in SCHEMES:
                emulate(d, w, h, scheme)
                login_shot("%s-%s-login.png" % (size, scheme), True)
        report.check("the login page was shown at %s" % login, True)
    report.info["shots"] = written
    report.check("every screenshot was written", all(os.path.getsize(p) > 1000 for p in written),
                 [p for p in written if os.path.getsize(p) <= 1000])
    mpd.close()


if __name__ == "__main__":
    main("shots", run)
