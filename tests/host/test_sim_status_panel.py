"""The simulator page explains itself: the status panel says, from the firmware's own status
line (``app.sim_status``), what the board expects next -- at the start, in the opening, in a
turn, after a refused illegal play, during a double, after a game; the console's records
are decoded with the sides by colour; the LED legend is docs/leds.md's palette, taken from
``bg.leds``; the pairing value comes from the firmware's console."""

import random
import re
import time
from pathlib import Path

from bg import board as B
from bg import leds

from tools.sim import demo, server
from tools.sim import status as words

ROOT = Path(__file__).resolve().parents[2]


def _until(fn, timeout=5.0, what="condition"):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = fn()
        if v:
            return v
        time.sleep(0.05)
    raise AssertionError("timed out waiting for " + what)


def _next(sim, needle, timeout=5.0):
    return _until(
        lambda: needle in sim.status.get("next", "") and sim.status, timeout, repr(needle) + " in status"
    )


def test_status_panel_follows_the_firmware_through_a_game(tmp_path):
    sim = server.Sim(image=str(tmp_path / "f.lfs"), settings={"length": 1}, seed="status")
    sim.physical.set_start()
    sim.start()
    try:
        st = _next(sim, "press ROLL to start the match")
        assert st["match"] == "1-point match" and st["score"] == "white 0, black 0"
        assert st["cube"] == "1, centred" and st["turn"] == "either player" and st["dice"] == "-"
        p = demo.Player(sim, random.Random(7))
        p.start_game(True)
        side = p.side
        who = words.SIDES[side]
        st = _next(sim, "%s to play %d-%d" % (who, p.dice[0], p.dice[1]))
        assert st["turn"] == who and st["pips"] == "white 167, black 167"
        # the opening throw in the console: decoded, sides by colour
        assert any(
            ("opening throw: white %d, black %d" % p.dice) in (words.decode_log(x) or "") for x in sim.log
        )

        # an illegal play: the mover's checker from its 6 point one point backwards (its 7),
        # confirmed -> refused; the panel names the rows to correct in the mover's numbering
        six, seven = demo.loc(side, 6), demo.loc(side, 7)
        p.hand_move(six, seven)
        time.sleep(0.2)
        st = None
        for _ in range(4):
            p.press("roll%d" % side)
            try:
                st = _next(sim, "illegal:", 1.0)
                break
            except AssertionError:
                continue
        assert st, sim.status
        assert "a checker too many on point 7" in st["next"], st
        assert "a checker missing on point 6" in st["next"], st
        p.hand_move(seven, six)  # put it back, then the real play
        _next(sim, "%s to play" % who)
        assert p.turn() is None  # the play, then the other side's roll
        other = words.SIDES[1 - side]
        st = _next(sim, "%s to play %d-%d" % (other, p.dice[0], p.dice[1]))
        assert st["last"].startswith(who + " ") and "/" in st["last"], st
        # a 1-point match: no doubling (Crawford-free but pointless); the panel still says
        # whose roll it is; a double is covered in the money test below
        end = None
        while end is None:
            end = p.turn()
        st = _next(sim, "wins", 5)
        winner, points = int(end.split()[0]), int(end.split()[1])  # GAME_END winner points ...
        assert "%s wins %d point" % (words.SIDES[winner], points) in st["next"], (end, st)
        assert st["score"] == (
            "white %d, black 0" % points if winner == 0 else "white 0, black %d" % points
        ), st
    finally:
        sim.stop()


def test_status_during_a_double_names_the_taker_and_the_buttons(tmp_path):
    sim = server.Sim(image=str(tmp_path / "f.lfs"), settings={"length": 5}, seed="dbl")
    sim.physical.set_start()
    sim.start()
    try:
        p = demo.Player(sim, random.Random(3))
        p.start_game(True)
        side = p.side
        plays = demo.movegen.plays(p.pos, side, p.dice[0], p.dice[1])
        p.make_play(side, plays[0][0])
        time.sleep(0.1)
        p.press_until("roll%d" % side, ("PLAY",))
        doubler = 1 - side
        _next(sim, "%s to roll" % words.SIDES[doubler])
        p.press_until("cube%d" % doubler, ("DOUBLE",))
        st = _next(sim, "double offered")
        assert st["next"] == "double offered: %s ROLL takes, CUBE drops" % words.SIDES[side], st
        p.press_until("roll%d" % side, ("TAKE",))
        st = _next(sim, "%s to roll" % words.SIDES[doubler])
        assert st["cube"] == "2, owned by %s" % words.SIDES[side], st
        # the doubler may not double again (the taker owns the cube): CUBE is not offered,
        # and a press is refused with the reason
        assert "CUBE" not in st["next"], st
        p.press("cube%d" % doubler)
        st = _next(sim, "no double: the opponent owns the cube")
        assert st["next"].startswith("%s to roll: press ROLL" % words.SIDES[doubler]), st
        assert st["cube"] == "2, owned by %s" % words.SIDES[side], st
    finally:
        sim.stop()


def test_record_lines_are_decoded_with_sides_by_colour_and_junk_is_left_alone():
    d = words.decode_log
    assert d("OPENING 0 (6, 1)") == "opening throw: white 6, black 1"
    assert d("ROLL 1 3 5") == "black rolls 3-5"
    assert d("PLAY 0 (24, 18, 13, 11) 0") == "white plays 24/18 13/11"
    assert d("PLAY 1 () 0") == "black plays cannot move"
    # from the position it was played from: GNU Backgammon's notation, hits marked
    pos = B.start_position()
    B.apply_step(pos, 1, 24, 18)  # black's back checker on white's 7 point: a blot
    assert d("PLAY 0 (13, 7, 7, 4) 0", pos.hex()) == "white plays 13/7*/4"
    assert d("PLAY 0 (13, 7, 8, 7) 0", pos.hex()) == "white plays 13/7* 8/7"
    assert d("PLAY 0 (6, 5, 5, 4) 0", pos.hex()) == "white plays 6/4"  # one checker: joined
    assert d("PLAY 0 (24, 18) 0", "zz") == "white plays 24/18"  # a garbled position: hop by hop
    assert d("PLAY 1 (24, 18) 0", pos.hex()) == "black plays 24/18"  # not where it was played from
    assert d("DOUBLE 1 2") == "black doubles to 2"
    assert d("TAKE 0") == "white takes"
    assert d("GAME_END 1 2 2 0") == "black wins 2 points (gammon)"
    assert d("MATCH_END 0 3 1") == "white wins the match 3-1"
    # not records, or records with fields a clumsy (or hostile) line garbles: no decoding,
    # never an exception (the raw line still shows)
    for junk in (
        "pairing code: 123456",
        "ROLL",
        "ROLL x 1 2",
        "ROLL 7 1 2",
        "GAME_END 9",
        "",
        "OPENING 0 (a, b)",
        "PLAY 0 (24, 99) 0",
        "PLAY 0 (24, 18, 13) 0",
    ):
        assert d(junk) is None, junk


def test_legend_is_the_palette_of_docs_leds_from_the_firmware_constants():
    rows = []
    text = (ROOT / "docs" / "leds.md").read_text()
    table = text.split("## Palette", 1)[1].split("##", 1)[0]
    for line in table.splitlines():
        m = re.match(r"\| (.+?) \| (.+?) \| (\d+), (\d+), (\d+) \|$", line)
        if m:
            rows.append({"role": m.group(1), "name": m.group(2), "rgb": [int(m.group(i)) for i in (3, 4, 5)]})
    assert rows and rows == words.legend()
    assert words.legend()[0]["rgb"] == list(leds.SIDE_COLOURS[0]) and words.legend()[1]["rgb"] == list(
        leds.SIDE_COLOURS[1]
    )


def test_pairing_value_follows_the_firmware_console():
    sim = server.Sim()  # not started: the console lines are fed as the firmware logs them
    seen = []
    q = sim.subscribe()
    sim._log("pairing window open")
    assert sim.pairing is None
    sim._log("pairing code: 042917")
    assert sim.pairing == "042917" and sim.state()["pairing"] == "042917"
    sim._log("PLAY 0 (8, 5, 6, 5) 0")  # the game goes on: the value stays
    assert sim.pairing == "042917"
    for end in ("pairing confirmed", "pairing refused", "pairing closed", "link: every host unpaired"):
        sim._log("pairing code: 111111")
        sim._log(end)
        assert sim.pairing is None, end
    while not q.empty():
        seen.append(q.get_nowait())
    assert ("pairing", {"code": "042917"}) in seen and ("pairing", {"code": None}) in seen


def test_the_next_line_names_the_computers_play_and_the_coachs():
    expect = words.expect
    st = {"s": 1, "cp": 1, "pl": [[24, 18, 18, 13], 0], "m": ""}
    text = expect(st, "moving", "black", [6, 5])
    assert text.startswith("the computer (black) plays 6-5: 24/18 18/13") and "LEDs" in text
    st = {"s": 1, "cp": 1, "pl": [[24, 18, 18, 13], 0], "m": "not the computer's play"}
    assert expect(st, "moving", "black", [6, 5]).endswith("-- not the computer's play")
    st = {"s": 0, "cp": 1, "pl": [[13, 7, 8, 7], 1], "m": ""}
    assert "the coach shows 13/7 8/7 on the LEDs" in expect(st, "moving", "white", [6, 1])
    st = {"s": 0, "cp": -1, "pl": None, "m": ""}
    assert expect(st, "moving", "white", [6, 1]).startswith("white to play 6-1: move the checkers")


def test_the_roll_line_offers_cube_only_when_the_roller_may_double():
    expect = words.expect
    st = {"s": 0, "md": 1, "m": ""}
    text = expect(st, "await_roll", "white", [0, 0])
    assert text == "white to roll: press ROLL (bottom), or CUBE to double"
    st = {"s": 1, "md": 0, "m": ""}
    assert expect(st, "await_roll", "black", [0, 0]) == "black to roll: press ROLL (top)"
    # a match with another board whose player's host is not back: the refused double's line
    st = {"s": 0, "md": 1, "cp": 1, "rm": 1, "m": words.AWAY}
    text = expect(st, "await_roll", "white", [0, 0])
    assert text.startswith("white to roll: press ROLL (bottom)") and "CUBE" not in text, text
    assert "black (remote) is not connected" in text, text
    assert '"%s"' % words.AWAY in (ROOT / "firmware" / "app" / "controller.py").read_text()  # its word
    st = {"s": 1, "md": 0, "cr": 1, "m": "no doubling in the Crawford game"}
    text = expect(st, "await_roll", "black", [0, 0])
    assert "CUBE" not in text and text.endswith("-- no doubling in the Crawford game"), text


def test_the_next_line_numbers_points_from_the_mover_and_says_when_there_is_no_play():
    expect = words.expect
    # rows: board point 7 (white's 7) extra, board point 6 missing; black on roll reads them
    # as its 18 and 19 points, as GNU Backgammon numbers them for black
    st = {"s": 1, "m": "", "err": [1 << 5, 1 << 6]}
    text = expect(st, "moving", "black", [6, 5])
    assert text == (
        "illegal: a checker too many on point 18; a checker missing on point 19; correct it, then press ROLL"
    )
    st["s"] = 0
    assert "too many on point 7; a checker missing on point 6;" in expect(st, "moving", "white", [6, 5])
    assert "white's bar" in expect({"s": 1, "m": "", "err": [0, 1 << 24]}, "moving", "black", [6, 5])
    # no legal play (white on the bar, black's home board closed): press ROLL to pass
    pos = bytearray(B.new_position())
    pos[24] = 1  # white on the bar (bg.board: side 0's bar)
    for p in range(1, 7):
        pos[25 + p - 1] = 2  # black's points 1..6
    pos[25 + 12] = 3
    pos[50 + 0] = 14
    st = {"s": 0, "m": "", "pos": pos.hex(), "pl": [[], 1], "cp": -1}
    text = expect(st, "moving", "white", [6, 6])
    assert text == "white to play 6-6: no legal play -- press ROLL (bottom) to pass", text
    # the coach's play in notation with the hit marked
    pos = B.start_position()
    B.apply_step(pos, 1, 24, 18)
    st = {"s": 0, "m": "", "pos": pos.hex(), "pl": [[13, 7, 7, 4], 1], "cp": -1}
    assert "the coach shows 13/7*/4 on the LEDs" in expect(st, "moving", "white", [6, 3])


def test_the_cube_goes_back_to_the_middle_when_a_game_ends():
    st = {"ph": 3, "s": 0, "c": 2, "o": 1}
    assert words.describe(st)["cube"] == "2, owned by black"
    st["ph"] = words.PHASES.index("game_over")
    assert words.describe(st)["cube"] == "1, centred (next game)"
    st["ph"] = words.PHASES.index("match_over")
    assert words.describe(st)["cube"] == "-"


def test_learning_modes_verdict_in_words_names_the_play_and_the_best_play():
    pos = B.start_position()
    before = {"pos": pos.hex()}
    st = {"s": 1, "ph": 3, "lp": [0, [13, 7, 8, 7]], "lv": [0, 1, [13, 7, 8, 7], [13, 7, 8, 7]]}
    assert words.describe(st, before)["verdict"] == "white's 13/7 8/7: the best play"
    st["lv"] = [0, 0, [24, 18, 24, 23], [13, 7, 8, 7]]
    st["lp"] = [0, [24, 18, 24, 23]]
    text = words.describe(st, before)["verdict"]
    assert text.startswith("white's 24/23 24/18: not the best; the best play was 13/7 8/7 (pubeval: "), text
    assert re.search(r"\(pubeval: \d+\.\d{3} lower\)$", text) and float(text.split()[-2]) > 0, text
    assert "verdict" not in words.describe({"s": 1, "ph": 3, "lp": [0, [24, 18, 24, 23]]}, before)
