"""docs/getting-started.md walked as written, in headless Chromium at 1400x1000 with real
mouse drags: the computer setting, pairing `gammon` from the page, setting up, the coach, the
computer's play followed on the LEDs, a hit and the bar, bearing off, the match's end -- then
`gammon sync`, `list`, `show`, `export` and GNU Backgammon reading the export. Each step
asserts what the page says, and the guide's pictures are this test's screenshots
(``make docs-img`` writes them to docs/img; a plain run writes them to a temporary folder)."""

import os
import shutil
import threading
import time
from pathlib import Path

import pytest
import test_browser_sim as T  # the page's drivers: browser, drags, LEDs
from bg import board as B
from bg import engine as movegen

from tools.sim.drive import free_port

ROOT = Path(__file__).resolve().parents[2]

GUIDE = ROOT / "docs" / "getting-started.md"
SHOTS = ("gs-computer-setting", "gs-coach", "gs-computer", "gs-hit", "gs-bearoff", "gs-end")


def _hits(pos, side, steps):
    """How many blots ``steps`` hits from ``pos``."""
    scratch, n = bytearray(pos), 0
    for i in range(0, len(steps), 2):
        t = steps[i + 1]
        if t and B.opp_count(scratch, side, t) == 1:
            n += 1
        B.apply_step(scratch, side, steps[i], t)
    return n


def _move(d, pos, side, steps):
    """Drag ``steps`` on the page as a player does (a hit blot to its bar first)."""
    for i in range(0, len(steps), 2):
        f, t = steps[i], steps[i + 1]
        if t and B.opp_count(pos, side, t) == 1:
            T._drag(d, T._loc(side, t), 24 + (1 - side))
        T._drag(d, T._loc(side, f), T._loc(side, t))
        B.apply_step(pos, side, f, t)


def _confirm(d, log, n):
    """Press white's ROLL until the board has recorded ``n`` plays (a press made before the
    last checker's debounce is not a confirm, as on the board)."""
    for _ in range(4):
        T._click(d, "roll0")
        try:
            T._wait(lambda: len(log("PLAY")) >= n, 1.5)
            return
        except AssertionError:
            continue
    raise AssertionError("the play was not recorded")


def test_the_first_game_of_the_guide(tmp_path, monkeypatch, capsys):
    from bg.engine.pubeval import PubEval
    from export_helpers import mismatches
    from gammon import cli
    from gammon import link as L
    from gammon.library import Library
    from selenium.webdriver.support.ui import Select

    monkeypatch.setenv("GAMMON_CONFIG_DIR", str(tmp_path / "cfg"))
    monkeypatch.setenv("GAMMON_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GAMMON_NO_DAEMON", "1")  # the commands one after the other here
    shots = T.IMG if os.environ.get("GAMMON_SHOTS") else tmp_path
    guide = GUIDE.read_text()
    for name in SHOTS:  # every picture this test makes is in the guide
        assert "img/%s.png" % name in guide, name
    d, prof = T._browser("1400,1000")
    port = free_port()
    sim = T.server.Sim(
        image=str(tmp_path / "f.lfs"), settings={"length": 1}, seed="first-game", link_port=port
    )
    sim.start()
    httpd = T.server.serve(sim, port=0)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    log = T._Console(sim)
    pe = PubEval()
    try:
        d.get("http://127.0.0.1:%d/" % httpd.server_address[1])
        T._wait(lambda: d.execute_script("return document.body.dataset.ready"), what="page ready")

        # 1. the computer: the board plays black, learning mode on
        Select(d.find_element("id", "vs-side")).select_by_value("1")
        d.find_element("id", "vs-learn").click()
        d.find_element("id", "vs-start").click()
        T._wait(lambda: sim.settings.get("computer") == 1 and sim._fw is not None, 30, "the board restarted")
        note = T._wait(lambda: "restarted" in T._text(d, "vs-note") and T._text(d, "vs-note"), what="note")
        assert "the board plays black (you are white), learning mode" in note, note

        # 2. pairing: the page's gesture, the same number here and on the page, ROLL confirms
        T._wait(lambda: any("link: listening" in x for x in sim.log), 20, "the link")
        d.find_element("id", "g-pair").click()
        T._wait(lambda: "pairing window open" in T._text(d, "log"), what="pairing window")

        def show_value(value):
            assert T._wait(lambda: T._text(d, "pair-code"), what="the value") == value
            T._wait(lambda: d.execute_script("return !document.getElementById('g-pair').disabled"))
            T._click(d, "roll0")

        board_id = L.pair("tcp:127.0.0.1:%d" % port, show_value, host_name="first-game")
        T._wait(lambda: "pairing confirmed" in T._text(d, "log"), what="pairing confirmed")

        # 3. set up the checkers; ROLL starts the match, ROLL throws the opening
        d.find_element("id", "setup-start").click()
        T._next_says(d, "press ROLL to start the match")
        d.save_screenshot(str(shots / "gs-computer-setting.png"))
        for _ in range(12):  # (a tie throws again)
            T._click(d, "roll0")
            try:
                T._wait(lambda: [s for s in (0, 1) if T._lit(d, "turn", s)] and log("OPENING"), 1.5)
                if " to play " in T._text(d, "next") or "plays" in T._text(d, "next"):
                    break
            except AssertionError:
                continue
        assert "pubeval" in log("MATCH_START")[-1]

        pos = B.start_position()
        plays = rolled = 0
        seen = set()
        side = T._wait(lambda: [s for s in (0, 1) if T._lit(d, "turn", s)] or None, what="turn LED")[0]
        for _turn in range(400):
            if plays:
                if side == 0:
                    for _ in range(4):
                        T._click(d, "roll0")
                        try:
                            T._wait(lambda n=rolled: len(log("ROLL")) > n, 3.0)
                            break
                        except AssertionError:
                            continue
                else:  # the board throws the computer's dice by itself
                    T._wait(lambda n=rolled: len(log("ROLL")) > n, 5.0, "the computer's throw")
                rolled += 1
                r = log("ROLL")[-1]
                assert r[1] == str(side), r
                dice = (int(r[2]), int(r[3]))
            else:
                o = log("OPENING")[-1]
                dice = tuple(int(x) for x in " ".join(o[2:]).strip("()").split(","))
            time.sleep(0.3)  # the roll animation under way (the throw is in the log)
            before = bytearray(pos)
            if side == 0:
                found = movegen.plays(pos, 0, dice[0], dice[1])
                if "coach" not in seen and found:
                    # 4. the coach: ROLL held a second puts the best play on the LEDs
                    d.find_element("id", "coach0").click()
                    text = T._next_says(d, "the coach shows")
                    want = T._words.play_words(pos, 0, tuple(pe.best(pos, 0, dice[0], dice[1])))
                    assert "the coach shows %s on the LEDs" % want in text, (text, want)
                    d.save_screenshot(str(shots / "gs-coach.png"))
                    steps = tuple(pe.best(pos, 0, dice[0], dice[1]))  # played as the LEDs show
                    seen.add("coach")
                    # one checker moved, not confirmed yet: the panel's pips and dice follow it
                    start_pips = B.pip_count(pos, 0)
                    _move(d, pos, 0, steps[:2])
                    die = steps[0] - steps[1]
                    used = "one played, three to play" if dice[0] == dice[1] else "%d played" % die
                    T._wait(lambda u=used: u in T._text(d, "st-dice"), what="the die used in the panel")
                    want = "white %d (was %d), black " % (start_pips - die, start_pips)
                    assert T._text(d, "st-pips").startswith(want), T._text(d, "st-pips")
                    rest = steps[2:]  # the rest of the play
                else:  # a hitting play when there is one: the guide shows the bar
                    best = [p[0] for p in found if _hits(pos, 0, p[0])] or [p[0] for p in found]
                    steps = rest = tuple(best[0]) if best else ()
                _move(d, pos, 0, rest)
                time.sleep(0.2)
                _confirm(d, log, plays + 1)
                if steps and "verdict" not in seen:  # learning mode's verdict in words
                    v = T._wait(
                        lambda: T._text(d, "st-verdict").startswith("white's") and T._text(d, "st-verdict")
                    )
                    assert v.endswith(": the best play") or "; the best play was " in v, v
                    seen.add("verdict")
            else:
                steps = tuple(pe.best(pos, 1, dice[0], dice[1]))
                if steps:  # 5. the computer's play on the LEDs, step by step
                    t = steps[1]
                    at = ("tray", 1) if t == 0 else ("point", 25 - t)
                    T._wait(lambda at=at: T._lit(d, *at), 3.0, "the computer's first step on the LEDs")
                    if "computer" not in seen:
                        text = T._next_says(d, "the computer (black) plays %d-%d" % dice)
                        assert "move those checkers as the LEDs show" in text, text
                        d.save_screenshot(str(shots / "gs-computer.png"))
                        seen.add("computer")
                _move(d, pos, 1, steps)
                T._wait(lambda n=plays + 1: len(log("PLAY")) >= n, 5.0, "the board records its play")
            plays += 1
            last = log("PLAY")[plays - 1]
            assert last[1] == str(side), last
            if steps and "hit" not in seen and _hits(before, side, steps):
                # 6. a hit: the blot waits on its bar, the panel marks the hit
                T._wait(lambda: "*" in T._text(d, "st-last"), what="the hit in the panel")
                assert d.execute_script("return sim.locs[24].length + sim.locs[25].length") >= 1
                d.save_screenshot(str(shots / "gs-hit.png"))
                seen.add("hit")
            if 0 in steps[1::2] and "bearoff" not in seen:
                # 7. bearing off: the checker goes to the player's tray
                T._wait(lambda: "/off" in T._text(d, "st-last"), what="the bear-off in the panel")
                assert d.execute_script("return sim.locs[26].length + sim.locs[27].length") >= 1
                d.save_screenshot(str(shots / "gs-bearoff.png"))
                seen.add("bearoff")
            if pos[50 + side] == 15:  # every checker off: the game and the 1-point match end
                break
            side = 1 - side
        # 8. the match's end in the panel
        text = T._next_says(d, "match over", 10)
        winner = ("white", "black")[side]
        assert text.startswith("%s wins" % winner), text
        points = int(text.split()[2])  # 1, or 2 for a gammon, 3 for a backgammon
        score = ["white 0", "black 0"]
        score[side] = "%s %d" % (winner, points)
        assert T._text(d, "st-score") == ", ".join(score)
        # the summary in the panel (the board's journal read back, as gammon show prints it)
        panel = T._wait(
            lambda: (
                d.execute_script("return !document.getElementById('summary').hidden")
                and T._text(d, "summary")
            ),
            30,
            "the match's summary",
        )
        assert "(board's computer)" in panel and "game 1: " in panel, panel
        d.save_screenshot(str(shots / "gs-end.png"))
        assert seen == {"coach", "verdict", "computer", "hit", "bearoff"}, seen
        for name in SHOTS:
            assert (shots / (name + ".png")).stat().st_size > 10000, name

        # 9. on the PC: sync, list, show, export -- and GNU Backgammon reads the export
        capsys.readouterr()
        assert cli.main(["sync"]) == 0
        assert "1 new or updated match" in capsys.readouterr().out
        assert cli.main(["boards"]) == 0  # the factory name: "Gammon" and the id's last 4 hex
        assert "Gammon %s" % board_id[-4:] in capsys.readouterr().out
        assert cli.main(["list"]) == 0
        listed = capsys.readouterr().out
        assert "pubeval" in listed, listed
        assert cli.main(["show", "#1"]) == 0
        shown = capsys.readouterr().out
        # the summary: who played what, the result, GNU Backgammon's error rates
        assert "Summary" in shown and "pubeval (board's computer)" in shown, shown[-800:]
        assert "game 1: %s wins" % ("white", "pubeval")[side] in shown, shown[-800:]
        assert "by GNU Backgammon: error rate" in shown, shown[-800:]
        # the page said the same
        summary = shown.split("\nSummary\n", 1)[1].rsplit("\n\n", 1)[0]
        assert [x.strip() for x in summary.splitlines()] == [x.strip() for x in panel.splitlines()]
        mat = tmp_path / "first.mat"
        assert cli.main(["export", "#1", "-f", "mat", "-o", str(mat)]) == 0
        gnubg = pytest.importorskip("gnubg")
        gnubg.command("import mat %s" % mat)
        with Library.open() as lib:
            m = lib.load(lib.resolve("#1"))
        assert mismatches(m, gnubg.match()) == []
        assert m.games[0].winner == side
    finally:
        d.quit()
        httpd.shutdown()
        httpd.server_close()
        sim.stop()
        shutil.rmtree(prof, ignore_errors=True)
