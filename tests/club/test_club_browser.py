"""The broadcast page in headless Chromium (Selenium, as the simulator's browser test): three
boards of an event pushed to one server process, the page served by the other; it shows every
board (checkers, dice, cube, score, whose turn), follows new events live, opens one board full
size on a click, lists the finished match with its dice verdict, and fits a phone's screen.
Screenshots at desktop and phone sizes are left in the test's folder."""

import os
import shutil
import time

from club_helpers import played
from gammon.club import push
from test_browser_sim import _browser, _wait


def _expected_circles(pos):
    """The checkers the page draws for a position: up to 5 per point, one per occupied bar."""
    n = sum(min(pos[p - 1] or pos[49 - p], 5) for p in range(1, 25))
    return n + (pos[24] > 0) + (pos[49] > 0)


def test_the_broadcast_page_on_desktop_and_phone(servers, db, event, tmp_path):
    tok = event("hall", rate=10_000)
    games = {"Board 1": played(61, ("Cleo", "Dan")), "Board 2": played(62, ("Eve", "Finn"), clock_s=600)}
    games["Board 3"] = played(63, ("Gus", "Hal"))
    upto = {"Board 1": None, "Board 2": 40, "Board 3": 12}
    p = push.Pusher(servers[0].url, tok)
    boxes = {}
    for b, (recs, _data) in games.items():
        boxes[b] = push.Outbox(b, folder=tmp_path)
        for r in recs[: upto[b]]:
            boxes[b].add("append", r)
        assert boxes[b].flush(p)
    recs1, data1 = games["Board 1"]
    assert p.push_match(data1, data1[2:10].hex(), "Board 1")["status"] == "new"

    from gammon.club import schema

    schema.add_pairing(db, event.event, 1, "Cleo", "Dan", "Board 1")
    schema.add_pairing(db, event.event, 1, "Eve", "Finn", "Board 2")
    d, prof = _browser("1280,900")
    try:
        d.get(servers[1].url + "/events/" + event.event)
        _wait(lambda: len(d.find_elements("css selector", "#boards .card")) == 3, 15, "three boards")
        _wait(lambda: d.find_element("id", "conn").text == "live", 10, "the live feed")
        cards = {
            c.find_element("css selector", "h2 span").text: c
            for c in d.find_elements("css selector", ".card")
        }
        assert set(cards) == set(games)
        state = d.execute_script("return boards")
        for s in state.values():
            b = s["board"]
            card = cards[b]
            assert len(card.find_elements("css selector", "circle")) == _expected_circles(s["pos"]), b
            assert s["names"][0] in card.text and s["names"][1] in card.text
        assert "(won)" in cards["Board 1"].text
        b2 = next(s for s in state.values() if s["board"] == "Board 2")
        assert b2["turn"] in (0, 1) and "to play" in cards["Board 2"].text
        # the match clock: each side's time left, as the board's CLOCK records say
        assert b2["clock"] and all(0 < t <= 600_000 for t in b2["clock"]), b2["clock"]
        left = b2["clock"][0] // 1000
        assert "\u00b7 %d:%02d" % (left // 60, left % 60) in cards["Board 2"].text
        assert ":" not in cards["Board 3"].find_element("css selector", ".info").text
        # the finished match with its dice verdict
        _wait(lambda: "PASS" in d.find_element("id", "matches").text, 10, "the dice verdict")
        assert "Cleo" in d.find_element("id", "standings").text
        rounds = d.find_element("id", "rounds").text
        assert "Cleo - Dan 0-1, Dan won" in rounds and "Eve - Finn playing" in rounds, rounds

        # live: Board 3 goes on; the page follows without a reload
        recs3 = games["Board 3"][0]
        for r in recs3[12:30]:
            boxes["Board 3"].add("append", r)
        assert boxes["Board 3"].flush(p)
        _wait(
            lambda: any(
                s["board"] == "Board 3" and s["seq"] == 30 for s in d.execute_script("return boards").values()
            ),
            10,
            "Board 3's event 30",
        )

        # one board full size on a click
        d.find_elements("css selector", "#boards .card")[1].click()
        full = _wait(
            lambda: d.find_element("id", "full").is_displayed() and d.find_element("id", "full"), 5, "zoom"
        )
        assert full.find_element("css selector", "svg").size["width"] > 900
        d.save_screenshot(str(tmp_path / "club-board-full.png"))
        full.click()
        _wait(lambda: not d.find_element("id", "full").is_displayed(), 5, "zoom closed")
        d.save_screenshot(str(tmp_path / "club-desktop.png"))
        cols = d.execute_script(
            "return getComputedStyle(document.getElementById('boards')).gridTemplateColumns.split(' ').length"
        )
        assert cols >= 3

        d.set_window_size(390, 844)  # a phone
        time.sleep(0.3)
        assert d.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1")
        cols = d.execute_script(
            "return getComputedStyle(document.getElementById('boards')).gridTemplateColumns.split(' ').length"
        )
        assert cols == 1
        width = d.find_element("css selector", "#boards .card").size["width"]
        assert width >= 300
        d.save_screenshot(str(tmp_path / "club-phone.png"))
        for name in ("club-board-full.png", "club-desktop.png", "club-phone.png"):
            assert (tmp_path / name).stat().st_size > 10_000
        out = os.environ.get("GAMMON_SCREENSHOTS")
        if out:
            for name in ("club-board-full.png", "club-desktop.png", "club-phone.png"):
                shutil.copy(tmp_path / name, out)
    finally:
        d.quit()
        shutil.rmtree(prof, ignore_errors=True)
