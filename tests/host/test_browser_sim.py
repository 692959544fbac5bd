"""The simulator page in headless Chromium (Selenium): set up the checkers, throw the opening,
drag checkers with the mouse for two whole turns, confirm with the roll button, and check what
the page shows -- the LED dice, the turn LEDs, the checkers, the serial console. The page
knows no rules: the test reads the dice from the LED pips, as a player would."""

import os
import shutil
import tempfile
import threading
import time
from pathlib import Path

import pytest
from bg import board as B
from bg import engine as movegen

from tools.sim import server
from tools.sim import status as _words
from tools.sim.drive import free_port

ROOT = Path(__file__).resolve().parents[2]

CHROMIUM = "/usr/bin/chromium"
DRIVER = "/usr/bin/chromedriver"


def _browser(size="1400,1300"):
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
        "--window-size=" + size,
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
            before = bytearray(pos)
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
            if steps:  # the console decodes the play in GNU Backgammon's notation
                words = _words.play_words(before, side, steps)
                want = "PLAY: %s plays %s" % (("white", "black")[side], words)
                assert want in d.find_element("id", "log").text, want
        assert int(d.find_element("id", "frames").text) > 0
        # the LEDs as the eye sees them: full yellow is the palette's yellow, a quarter of it
        # (a pulse's low) still yellow and bright enough to see, not dark olive
        cap = d.execute_script("return sim.cap")
        yellow = [round(v * cap / 255) for v in (240, 228, 66)]
        full = d.execute_script("return sim.ledColour(...arguments)", *yellow)
        assert full[0] >= 240 and abs(full[1] / full[0] - 228 / 240) < 0.03, full  # its hue
        assert abs(full[2] / full[0] - 66 / 240) < 0.03, full
        low = d.execute_script("return sim.ledColour(...arguments)", *[v / 4 for v in yellow])
        assert low[0] > 100 and low[1] > 95 and low[2] < low[1] / 2, low
        r = d.execute_script(
            "return document.querySelector('circle.led[data-kind=\"point\"]').r.baseVal.value"
        )
        assert r >= 10  # point LEDs big enough to read at a glance
    finally:
        d.quit()
        httpd.shutdown()
        httpd.server_close()
        sim.stop()
        shutil.rmtree(prof, ignore_errors=True)


IMG = ROOT / "docs" / "img"


def _text(d, el_id):
    return d.find_element("id", el_id).text


def _next_says(d, needle, timeout=6.0):
    return _wait(
        lambda: needle in _text(d, "next") and _text(d, "next"), timeout, repr(needle) + " on the page"
    )


def test_the_page_guides_a_newcomer_pairing_a_double_and_a_game(tmp_path):
    """A newcomer with a mouse at 1400x1000: the page says what to do at each step, the
    pairing value is shown large, the page's own gesture control opens the pairing window
    and its ROLL button confirms it; a refused illegal play and a double are explained;
    a resigned game ends with the score."""
    from gammon import link as L

    d, prof = _browser("1400,1000")
    port = free_port()
    sim = server.Sim(image=str(tmp_path / "f.lfs"), settings={"length": 3}, link_port=port)
    sim.start()
    httpd = server.serve(sim, port=0)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    # screenshots of each step; GAMMON_SHOTS=1 writes them to docs/img (the README's pictures)
    shots = IMG if os.environ.get("GAMMON_SHOTS") else tmp_path
    try:
        d.get("http://127.0.0.1:%d/" % httpd.server_address[1])
        _wait(lambda: d.execute_script("return document.body.dataset.ready"), what="page ready")
        # both players' buttons are in the window without scrolling
        for b in ("btn-roll0", "btn-cube0", "btn-roll1", "btn-cube1", "resign0"):
            bottom = d.execute_script(
                "return document.getElementById(arguments[0]).getBoundingClientRect().bottom", b
            )
            assert bottom <= d.execute_script("return window.innerHeight"), (b, bottom)
        # the legend is the firmware's palette
        legend = _text(d, "legend")
        assert "sky blue: white (side 0)" in legend and "vermillion" in legend
        d.find_element("id", "setup-start").click()
        _next_says(d, "press ROLL to start the match")
        tools_at = d.execute_script(
            "return document.getElementById('setup-start').getBoundingClientRect().top"
        )

        # pairing from the page: its gesture control holds both ROLL buttons
        _wait(lambda: any("link: listening" in x for x in sim.log), what="the link")
        d.find_element("id", "g-pair").click()
        _wait(lambda: "pairing window open" in _text(d, "log"), what="pairing window")
        shown = []

        def show_value(value):
            code = _wait(lambda: _text(d, "pair-code"), what="the pairing value on the page")
            shown.append((value, code, _text(d, "pairing")))
            d.save_screenshot(str(shots / "simulator-pairing.png"))
            assert code == value, (code, value)  # the user compares, then presses ROLL
            # (once the page has let go of the gesture's buttons: a ROLL still held by it
            # would not make a new press)
            _wait(
                lambda: d.execute_script("return !document.getElementById('g-pair').disabled"),
                what="gesture done",
            )
            _click(d, "roll1")

        L.pair(
            "tcp:127.0.0.1:%d" % port, show_value, host_name="newcomer", boards=L.Boards(tmp_path / "b.json")
        )
        assert shown and "press ROLL" in shown[0][2]
        _wait(lambda: not d.find_element("id", "pair-code").text, what="the pairing value hidden")
        # the board logs "pairing closed" (the value hidden) and then "pairing confirmed"
        _wait(lambda: "pairing confirmed" in _text(d, "log"), what="pairing confirmed in the log")

        # the match: the first ROLL starts it, the next throws the opening
        _click(d, "roll0")
        _next_says(d, "press ROLL for the opening throw")
        for _ in range(8):  # (a tie throws again)
            _click(d, "roll0")
            try:
                _wait(lambda: " to play " in _text(d, "next"), 1.5)
                break
            except AssertionError:
                continue
        text = _next_says(d, " to play ")
        side = 0 if text.startswith("white") else 1
        dice = tuple(int(x) for x in _text(d, "st-dice").split("-"))
        assert text.startswith("%s to play %d-%d" % (("white", "black")[side], dice[0], dice[1]))
        assert _text(d, "st-turn") == ("white", "black")[side] and _text(d, "st-score") == "white 0, black 0"
        assert "opening throw: white %d, black %d" % dice in _text(d, "log")
        d.save_screenshot(str(shots / "simulator.png"))

        # an illegal play (the 6 point's checker one point backwards), confirmed: refused,
        # and the page says which points to correct
        _drag(d, _loc(side, 6), _loc(side, 7))
        time.sleep(0.2)
        for _ in range(3):
            _click(d, "roll%d" % side)
            try:
                _next_says(d, "illegal:", 1.5)
                break
            except AssertionError:
                continue
        text = _next_says(d, "illegal:")
        # a long headline leaves the controls where they were
        assert (
            d.execute_script("return document.getElementById('setup-start').getBoundingClientRect().top")
            == tools_at
        )
        # the mover's point numbers, as GNU Backgammon numbers them for the player on roll,
        # and the page's point labels read the same way
        assert "too many on point 7" in text and "missing on point 6" in text, text
        labels = d.execute_script(
            "return Array.from(document.querySelectorAll('text.pointlabel'))"
            ".map(t => [t.dataset.p, t.textContent])"
        )
        assert all(int(n) == (int(p) if side == 0 else 25 - int(p)) for p, n in labels), labels
        assert _text(d, "numbering") == "%s's numbers" % ("white", "black")[side]
        # the bar's halves are labelled (a hit checker goes to its own side's half)
        assert "white's bar" in _text(d, "barlabel0") and "black's bar" in _text(d, "barlabel1")
        d.save_screenshot(str(shots / "simulator-illegal.png"))
        _drag(d, _loc(side, 7), _loc(side, 6))
        _next_says(d, " to play ")

        pos = B.start_position()
        _play(d, pos, side, dice)
        time.sleep(0.2)
        other = 1 - side
        for _ in range(3):
            _click(d, "roll%d" % side)
            try:
                _next_says(d, "%s to roll" % ("white", "black")[other], 1.5)
                break
            except AssertionError:
                continue
        assert _text(d, "st-last").startswith(("white", "black")[side] + " ")

        # a double: the page names the taker and what its buttons do
        _click(d, "cube%d" % other)
        text = _next_says(d, "double offered")
        assert text == "double offered: %s ROLL takes, CUBE drops" % ("white", "black")[side]
        d.save_screenshot(str(shots / "simulator-double.png"))
        _click(d, "roll%d" % side)  # take
        text = _next_says(d, "%s to roll" % ("white", "black")[other])
        assert _text(d, "st-cube") == "2, owned by %s" % ("white", "black")[side]
        # the doubler may not double again: CUBE is not offered, and a press says why
        assert "CUBE" not in text, text
        _click(d, "cube%d" % other)
        _next_says(d, "no double: the opponent owns the cube")
        assert "%s wins" % ("white", "black")[other] not in _text(d, "next")

        # the doubler resigns with the page's control (CUBE held 1 s); the taker accepts
        d.find_element("id", "resign%d" % other).click()
        _next_says(d, "offers to resign")
        _click(d, "roll%d" % side)
        text = _next_says(d, "wins")
        assert text.startswith("%s wins 2 points" % ("white", "black")[side]), text
        want = "white 2, black 0" if side == 0 else "white 0, black 2"
        _wait(lambda: _text(d, "st-score") == want, what="the score " + want)
    finally:
        d.quit()
        httpd.shutdown()
        httpd.server_close()
        sim.stop()
        shutil.rmtree(prof, ignore_errors=True)


class _Console:
    """Every console line of the firmware (the server keeps only the last few hundred)."""

    def __init__(self, sim):
        self.sim = sim
        self.lines = []
        self.n = 0

    def __call__(self, name):
        """The lines ``NAME fields...`` so far, split into words."""
        new, self.n = self.sim.log_since(self.n)
        self.lines.extend(new)
        return [x.split() for x in self.lines if x.startswith(name + " ")]


def test_a_whole_game_against_the_computer_from_the_page(tmp_path):
    """The page's "play the computer" control restarts the board with the board playing
    black; the player (white) drags its plays with the mouse and confirms with ROLL; on
    black's turns the board throws by itself and shows its play on the LEDs (the first
    step's to-point lit), the test moves those checkers as a player following the LEDs does,
    and the board records the play by itself. The whole game to its end is the guide's
    (test_getting_started): here, until each side has played once."""
    from bg.engine.pubeval import PubEval

    d, prof = _browser()
    sim = server.Sim(image=str(tmp_path / "f.lfs"), settings={"length": 1}, seed="vs-computer")
    sim.start()
    httpd = server.serve(sim, port=0)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    pe = PubEval()
    _log_lines = _Console(sim)
    try:
        d.get("http://127.0.0.1:%d/" % httpd.server_address[1])
        _wait(lambda: d.execute_script("return document.body.dataset.ready"), what="page ready")
        # the select shows the board's setting (two players), not a preselected computer
        assert d.find_element("id", "vs-side").get_attribute("value") == ""
        assert _text(d, "vs-note") == "next match: two players, no computer"
        # a two-player match in progress when the player asks for the computer: it resumes
        # two-player (its records say so); the match after it is against the computer
        d.find_element("id", "setup-start").click()
        _wait(lambda: d.execute_script("return sim.locs[5].length") == 5, what="checkers set up")
        for _ in range(12):  # the match starts, then the opening throw (a tie throws again)
            _click(d, "roll0")
            try:
                _wait(lambda: " to play " in _text(d, "next"), 1.5)
                break
            except AssertionError:
                continue
        first = 0 if _next_says(d, " to play ").startswith("white") else 1
        assert "pubeval" not in " ".join(_log_lines("MATCH_START")[0])
        from selenium.webdriver.support.ui import Select

        Select(d.find_element("id", "vs-side")).select_by_value("1")
        d.find_element("id", "vs-learn").click()  # learning mode: the panel judges each play
        d.find_element("id", "vs-start").click()
        _wait(lambda: sim.settings.get("computer") == 1 and sim._fw is not None, 30, "the board restarted")
        note = _wait(lambda: "restarted" in _text(d, "vs-note") and _text(d, "vs-note"), what="confirmation")
        assert note.startswith("board restarted. next match: the board plays black (you are white)"), note
        _next_says(d, "%s to play" % ("white", "black")[first], 20)  # resumed as it was
        d.find_element("id", "resign%d" % first).click()
        _next_says(d, "offers to resign")
        _click(d, "roll%d" % (1 - first))
        _wait(lambda: _log_lines("MATCH_END"), 5.0, "the two-player match's end")
        _log_lines.lines = []  # the records of the match against the computer from here on
        d.find_element("id", "setup-start").click()
        _wait(lambda: d.execute_script("return sim.locs[5].length") == 5, what="checkers set up")
        for _ in range(12):  # the match starts, then the opening throw (a tie throws again)
            _click(d, "roll0")
            try:
                _wait(lambda: _log_lines("OPENING") and not _log_lines("OPENING")[-1][2:3] == [], 1.5)
                if _wait(lambda: [s for s in (0, 1) if _lit(d, "turn", s)] or None, 2.0):
                    break
            except AssertionError:
                continue
        start = _log_lines("MATCH_START")[-1]
        assert "pubeval" in start  # the records name the computer's side by its strength
        pos = B.start_position()
        plays = rolled = 0
        verdicts = []
        computer_played = False
        side = _wait(lambda: [s for s in (0, 1) if _lit(d, "turn", s)] or None, what="turn LED")[0]
        for _turn in range(400):
            if plays and side == 0:  # the player throws with its ROLL button
                for _ in range(4):
                    _click(d, "roll0")
                    try:
                        _wait(lambda n=rolled: len(_log_lines("ROLL")) > n, 3.0)  # (a second press
                        # too soon would pass a roll with no legal play)
                        break
                    except AssertionError:
                        continue
            elif plays:  # the board throws for the computer by itself, after the player's play
                _wait(lambda n=rolled: len(_log_lines("ROLL")) > n, 5.0, "the computer's throw")
            if plays:
                rolled += 1
            rolls = _log_lines("ROLL")
            opening = _log_lines("OPENING")[-1]
            if plays == 0:
                dice = tuple(int(x) for x in " ".join(opening[2:]).strip("()").split(","))
            else:
                assert rolls[-1][1] == str(side), (rolls[-1], side, sim.status)
                dice = (int(rolls[-1][2]), int(rolls[-1][3]))
            time.sleep(0.8)  # the roll animation settles
            if side == 0:
                steps = _play(d, pos, 0, dice)
                time.sleep(0.2)
                for _ in range(4):  # confirm (again if it came before the last checker's debounce)
                    _click(d, "roll0")
                    try:
                        _wait(lambda n=plays + 1: len(_log_lines("PLAY")) >= n, 1.5)
                        break
                    except AssertionError:
                        continue
                if steps and not verdicts:  # learning mode's verdict in words: the play, the best
                    v = _wait(lambda: _text(d, "st-verdict").startswith("white's") and _text(d, "st-verdict"))
                    assert v.endswith(": the best play") or "; the best play was " in v, v
                    verdicts.append(v)
            else:
                steps = pe.best(pos, 1, dice[0], dice[1])
                if steps:  # the LEDs show the first step: its to-point (or bar/tray) lit
                    t = steps[1]
                    at = ("tray", 1) if t == 0 else ("point", 25 - t)
                    _wait(lambda at=at: _lit(d, *at), 3.0, "the computer's first step on the LEDs")
                for i in range(0, len(steps), 2):
                    f, t = steps[i], steps[i + 1]
                    if t and B.opp_count(pos, 1, t) == 1:
                        _drag(d, _loc(1, t), 24)  # the hit blot to white's bar
                    _drag(d, _loc(1, f), _loc(1, t))
                    B.apply_step(pos, 1, f, t)
                _wait(lambda n=plays + 1: len(_log_lines("PLAY")) >= n, 5.0, "the board records its play")
            plays += 1
            # (the computer's pass of a roll with no legal play may follow at once: >=)
            assert len(_log_lines("PLAY")) >= plays
            last = _log_lines("PLAY")[plays - 1]
            assert last[1] == str(side), last
            if side == 1 and steps:
                computer_played = True
            if verdicts and computer_played:
                break
            side = 1 - side
        assert verdicts and computer_played and plays >= 2
    finally:
        d.quit()
        httpd.shutdown()
        httpd.server_close()
        sim.stop()
        shutil.rmtree(prof, ignore_errors=True)
