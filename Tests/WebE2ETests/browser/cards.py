#!/usr/bin/env python3
"""Scenario e: the cards page. Learning: an album chosen on the page (typed, picked from the suggestions), "Learn a
card", then `cardread 0001234567` over MPD as the reader would; the page says it learned it, MPD's `cards` lists it.
Then a learn stopped from the page (POST /api/cards/learn/cancel), a card read meanwhile listed as unknown, and that
unknown card assigned from the page, which is then no longer listed as unknown (by the API, MPD or the page).

Settings: base, mpd_port, stall.
"""
from common import MPD, api_json, browser, by_label, click, console_errors, eventually, js, main, page_ready, text, \
    wait_for


def run(s, report):
    mpd = MPD(s.mpd_port)
    stall = s.stall

    def cards():
        """MPD's bound cards: {id: target}."""
        out, current = {}, None
        for k, v in mpd.pairs("cards"):
            if k == "card":
                current = v
            elif k == "play" and current:
                out[current] = v
        return out

    d = browser(390, 844, "light")
    d.get(s.base + "#cards")
    page_ready(d, stall)
    form = wait_for(lambda: d.find_elements("css selector", "#v-cards form"), "the learn form", stall)[0]
    typed = form.find_element("css selector", "input[type=text]")
    click(d, typed)
    typed.send_keys("Slow")
    pick = wait_for(lambda: [b for b in form.find_elements("css selector", ".sugg button")
                             if b.text == "Slow Blues" and b.is_displayed()], "the suggestion Slow Blues", stall)[0]
    report.check("typing suggests the album from the library", True)
    click(d, pick)
    eventually(report, "the suggestion fills the field", lambda: typed.get_attribute("value") == "Slow Blues", stall,
               lambda: typed.get_attribute("value"))
    click(d, form.find_element("css selector", "button[type=submit]"))
    eventually(report, "learn: the page waits for a card",
               lambda: "Show the new card" in (text(d, "#v-cards .wait") or "") and
               js(d, "return !document.querySelector('#v-cards .wait').hidden"), stall, lambda: text(d, "#v-cards .wait"))
    eventually(report, "learn: the daemon waits to bind album:Slow Blues",
               lambda: api_json(s.base, "/api/cards")[1].get("learning") == "album:Slow Blues", stall,
               lambda: api_json(s.base, "/api/cards"))

    mpd.ok("cardread 0001234567")
    eventually(report, "cardread: the page says the card was learned",
               lambda: "Card 0001234567 learned" in (text(d, "#v-cards .wait") or "")
               and "Slow Blues" in (text(d, "#v-cards .wait") or ""), stall, lambda: text(d, "#v-cards .wait"))
    eventually(report, "cardread: MPD cards lists it for the album",
               lambda: cards().get("0001234567") == "album:Slow Blues", stall, lambda: mpd.pairs("cards"))
    eventually(report, "cardread: the page's list of cards has it",
               lambda: "0001234567" in (text(d, "#v-cards ul.list") or ""), stall, lambda: text(d, "#v-cards ul.list"))

    # a learn stopped from the page; a card read then is unknown
    typed.clear()
    typed.send_keys("Études for Strings")
    click(d, form.find_element("css selector", "button[type=submit]"))
    eventually(report, "second learn: the daemon waits",
               lambda: api_json(s.base, "/api/cards")[1].get("learning") == "album:Études for Strings", stall)
    click(d, wait_for(lambda: by_label(d, "Stop waiting for a card"), "the Stop waiting button", stall))
    eventually(report, "stop waiting: the daemon no longer waits (POST /api/cards/learn/cancel)",
               lambda: not api_json(s.base, "/api/cards")[1].get("learning"), stall, lambda: api_json(s.base, "/api/cards"))
    eventually(report, "stop waiting: the page no longer waits",
               lambda: js(d, "return document.querySelector('#v-cards .wait').hidden"), stall)
    cancels = [x for x in js(d, "return window.__api") if x["url"] == "/api/cards/learn/cancel"]
    report.check("stop waiting is a POST", [x["method"] for x in cancels] == ["POST"], cancels)
    mpd.ok("cardread 00ABCDEF")
    eventually(report, "an unknown card read shows under the unknown cards",
               lambda: "00ABCDEF" in (text(d, "#v-cards") or "").split("Unknown cards read lately")[-1], stall,
               lambda: text(d, "#v-cards"))
    report.check("the unknown card was not bound", "00ABCDEF" not in cards(), cards())

    # assign it from the page
    click(d, wait_for(lambda: by_label(d, "Assign the card 00ABCDEF"), "the Assign button", stall))
    assign = wait_for(lambda: [f for f in d.find_elements("css selector", "#v-cards ul.list li form")], "the assign form",
                      stall)[0]
    field = assign.find_element("css selector", "input[type=text]")
    field.send_keys("Études for Strings")
    click(d, assign.find_element("css selector", "button[type=submit]"))
    eventually(report, "assign: MPD cards lists it", lambda: cards().get("00ABCDEF") == "album:Études for Strings",
               stall, lambda: mpd.pairs("cards"))

    # bound now, it is no longer unknown: not in GET /api/cards, not in MPD's cards, not on the page
    eventually(report, "assign: GET /api/cards no longer lists it as unknown",
               lambda: "00ABCDEF" not in api_json(s.base, "/api/cards")[1].get("unknown", ["?"]), stall,
               lambda: api_json(s.base, "/api/cards"))
    report.check("assign: MPD's cards no longer has it as the unknown card",
                 mpd.ok("cards").get("unknown_card") != "00ABCDEF", mpd.pairs("cards"))
    eventually(report, "assign: the page's unknown cards no longer show it",
               lambda: "00ABCDEF" not in (text(d, "#v-cards") or "").split("Unknown cards read lately")[-1], stall,
               lambda: text(d, "#v-cards"))
    errors = console_errors(d)
    report.check("no console errors", not errors, errors)
    mpd.close()


if __name__ == "__main__":
    main("cards", run)
