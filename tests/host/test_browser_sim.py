"""The simulator page in headless Chromium (Selenium): set up the checkers, throw the opening,
drag checkers with the mouse for two whole turns, confirm with the roll button, and check what
the page shows -- the LED dice, the turn LEDs, the checkers, the serial console. The page
knows no rules: the test reads the dice from the LED pips, as a player would."""

import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "sim"))

import server  # noqa: E402
from bg import board as B  # noqa: E402
from bg import engine as movegen  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
DRIVER = "/usr/bin/chromedriver"


def _browser():
    if not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)):
        # .ci/run installs Chromium and sets GAMMON_REQUIRE_BROWSER: in CI this never skips.
        assert not os.environ.get("GAMMON_REQUIRE_BROWSER"), "Chromium missing in CI"
        pytest.skip("Chromium not installed (%s, %s): browser test skipped" % (CHROMIUM, DRIVER))
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    for a in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1400,1300",
    ):
        opts.add_argument(a)
    prof = tempfile.mkdtemp(prefix="sg-chrome-")
    opts.add_argument("--user-data-dir=" + prof)
    opts.binary_location = CHROMIUM
    return webdriver.Chrome(service=Service(DRIVER), options=opts), prof


def _wait(fn, timeout=10.0, what="condition"):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = fn()
        if v:
            return v
        time.sleep(0.05)
    raise AssertionError("timed out waiting for " + what)


def _lit(d, kind, index):
    return d.execute_script(
        'return Array.from(document.querySelectorAll(\'circle.led[data-kind="%s"][data-index="%s"]\'))'
        ".filter(e => e.dataset.lit).length" % (kind, index)
    )


def _dice(d):
    return (_lit(d, "die", 0), _lit(d, "die", 1))


def _loc(side, point):
    if point == 25:
        return 24 + side
    if point == 0:
        return 26 + side
    return (point if side == 0 else 25 - point) - 1


def _drag(d, loc_from, loc_to):
    from selenium.webdriver.common.action_chains import ActionChains

    el = d.find_element("css selector", '#checkers .top[data-loc="%d"]' % loc_from)
    d.execute_script("window.scrollTo(0, 0)")
    # both in viewport coordinates, after any scrolling
    dx, dy = d.execute_script(
        "var r = arguments[0].getBoundingClientRect(); var p = sim.dropPoint(arguments[1]);"
        "return [p[0] - (r.x + r.width / 2), p[1] - (r.y + r.height / 2)]",
        el,
        loc_to,
    )
    ActionChains(d).move_to_element(el).click_and_hold().move_by_offset(dx, dy).release().perform()
    time.sleep(0.05)


def _click(d, name):
    d.find_element("id", "btn-" + name).click()


def _play(d, pos, side, dice):
    plays = movegen.plays(pos, side, dice[0], dice[1])
    steps = plays[0][0] if plays else ()
    for i in range(0, len(steps), 2):
        f, t = steps[i], steps[i + 1]
        if t and B.opp_count(pos, side, t) == 1:
            _drag(d, _loc(side, t), 24 + (1 - side))  # the hit blot goes to the bar
        _drag(d, _loc(side, f), _loc(side, t))
        B.apply_step(pos, side, f, t)
    return steps


def test_two_turns_through_the_page(tmp_path):
    d, prof = _browser()
    sim = server.Sim(image=str(tmp_path / "f.lfs"), settings={"length": 3})
    sim.start()
    httpd = server.serve(sim, port=0)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        d.get("http://127.0.0.1:%d/" % httpd.server_address[1])
        _wait(lambda: d.execute_script("return document.body.dataset.ready"), what="page ready")
        d.find_element("id", "setup-start").click()
        _wait(lambda: d.execute_script("return sim.locs[5].length") == 5, what="checkers set up")
        assert d.execute_script("return sim.locs.reduce((a, s) => a + s.length, 0)") == 30
        # a new match, then the opening throw (the first press may come before the firmware
        # has debounced the set-up board: it is then ignored, as on the real board)
        for _ in range(8):  # (a tie throws again)
            _click(d, "roll0")
            try:
                _wait(lambda: all(_dice(d)), 1.5)
                break
            except AssertionError:
                continue
        log = d.find_element("id", "log").text
        assert "MATCH_START" in log and "OPENING" in log

        pos = B.start_position()
        side = 0
        for turn in range(2):
            if turn:
                side = 1 - side
                _click(d, "roll%d" % side)
            time.sleep(0.8)  # the roll animation settles on the real faces
            dice = _wait(lambda: _dice(d) if all(_dice(d)) else None, what="LED dice")
            side = _wait(lambda: [s for s in (0, 1) if _lit(d, "turn", s)] or None, what="turn LED")[0]
            if turn == 0:
                assert dice[0] != dice[1]  # the opening: one die each, never a double
            steps = _play(d, pos, side, dice)
            counts = d.execute_script("return sim.locs.map(s => s.length)")
            want = [pos[p - 1] + pos[49 - p] for p in range(1, 25)]
            assert counts[:24] == want, "%s %s %s\n%s\n%s" % (side, dice, steps, counts, want)
            time.sleep(0.2)
            for _ in range(3):  # confirm: picks up the dice (again if it came before the
                _click(d, "roll%d" % side)  # firmware had debounced the last checker)
                try:
                    _wait(lambda n=turn + 1: d.find_element("id", "log").text.count("PLAY") == n, 1.5)
                    break
                except AssertionError:
                    continue
            assert d.find_element("id", "log").text.count("PLAY") == turn + 1
            _wait(lambda s=side: _lit(d, "turn", 1 - s) and not _lit(d, "turn", s), what="turn passes")
            assert str(tuple(steps)) in d.find_element("id", "log").text or not steps
        assert int(d.find_element("id", "frames").text) > 0
    finally:
        d.quit()
        httpd.shutdown()
        httpd.server_close()
        sim.stop()
        shutil.rmtree(prof, ignore_errors=True)
