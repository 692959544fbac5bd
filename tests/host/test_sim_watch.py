"""Live watch and pairing against the running simulator: the real firmware (``app.main``
on the MicroPython unix port) serves its link on a local socket. Both ROLL buttons held open
the pairing window; the code appears on the LED dice (docs/leds.md) and the host pairs with
it; ``gammon watch`` (``watch_loop``) then follows turns played through the simulated reed
sensors: every confirmed action arrives as a real ``bg.record`` record, and the host's replay
ends on the position the robot players left on the board."""

import io
import random
import threading
import time
from pathlib import Path

import link_scenario as S
import pytest
from bg import hwdesc
from gammon import link as L
from gammon.commands.library import watch_loop

from tools.sim import demo, server

ROOT = Path(__file__).resolve().parents[2]

# Twice: as `make sim` runs it (the firmware in a ROMFS image, server.DEFAULT_HEAP of working
# heap on the 64-bit port), and as `make sim` with --board-model (the firmware frozen into the
# 32-bit board model, the board's 64k the whole heap) -- pairing and watching included.
MODES = [(True, server.DEFAULT_HEAP), ("board", server.BOARD_HEAP)]


def _white_die_pips(sim, board):
    """Die LEDs lit white (R = G = B > 0) in the latest frame."""
    f = sim.leds
    lit = 0
    for i in range(14):
        j = 3 * board.die_led[i]
        g, r, b = f[j], f[j + 1], f[j + 2]
        if r and r == g == b:
            lit += 1
    return lit


def _hold_both_rolls(sim):
    names = [b["name"] for b in sim.board["buttons"]]
    a, b = names.index("roll0"), names.index("roll1")
    sim.button(a, 1)
    sim.button(b, 1)
    time.sleep(1.2)  # a long press (0.8 s) of both
    sim.button(a, 0)
    sim.button(b, 0)


@pytest.mark.parametrize("rom,heap", MODES, ids=["rom-image", "board-model"])
def test_pairing_code_on_the_dice_and_watch_sees_real_turns(tmp_path, monkeypatch, rom, heap):
    monkeypatch.setenv("GAMMON_CONFIG_DIR", str(tmp_path / "cfg"))
    board = hwdesc.load(str(ROOT / "hardware" / "board.json"))
    port = S.free_port()
    sim = server.Sim(
        image=str(tmp_path / "flash.lfs"),
        settings={"length": 3},
        seed="watch",
        link_port=port,
        heap=heap,
        rom=rom,
    )
    sim.start()
    address = "tcp:127.0.0.1:%d" % port
    try:
        deadline = time.monotonic() + 10
        while not any("link: listening" in x for x in sim.log) and time.monotonic() < deadline:
            time.sleep(0.05)
        _hold_both_rolls(sim)
        assert any("pairing window open" in x for x in sim.log), sim.log[-10:]
        seen_on_dice = []

        def code(value):
            """The host's number: the board must show the same on its dice; the owner then
            presses a ROLL button (the simulator's button), which confirms the pairing."""
            end = time.monotonic() + 10
            while time.monotonic() < end:
                codes = [x.split()[-1] for x in sim.log if x.startswith("pairing code: ")]
                if codes and codes[-1].isdigit():
                    assert codes[-1] == value, (codes[-1], value)
                    # the board names the pairing host in the line after the code
                    while time.monotonic() < end and not any("pairing host 'watcher'" in x for x in sim.log):
                        time.sleep(0.02)
                    assert any("pairing host 'watcher'" in x for x in sim.log), sim.log[-10:]
                    # the board shows it on its dice: wait for a frame with white pips
                    while time.monotonic() < end and not seen_on_dice:
                        if _white_die_pips(sim, board):
                            seen_on_dice.append(bytes(sim.leds))
                        time.sleep(0.02)
                    roll = [b["name"] for b in sim.board["buttons"]].index("roll0")
                    sim.button(roll, 1)
                    time.sleep(0.15)
                    sim.button(roll, 0)
                    return
                time.sleep(0.05)
            raise AssertionError("no pairing code shown")

        L.pair(address, code, host_name="watcher")
        assert seen_on_dice, "the pairing code never appeared on the LED dice"
        end = time.monotonic() + 5
        while not any("pairing confirmed" in x for x in sim.log) and time.monotonic() < end:
            time.sleep(0.05)  # the board's log line follows its answer
        assert any("pairing confirmed" in x for x in sim.log), sim.log[-10:]

        p = demo.Player(sim, random.Random(11))
        p.start_game(True)  # MATCH_START, GAME_START, OPENING: a live match on the board
        with L.connect(address) as c:
            out = io.StringIO()
            res = {}

            def watch():
                try:
                    res["replay"] = watch_loop(c, out=out, clear=False, max_events=9)
                except Exception as e:  # noqa: BLE001 - reported by the assertion below
                    res["error"] = e

            th = threading.Thread(target=watch, daemon=True)
            th.start()
            time.sleep(1.5)  # the host is watching now
            for _ in range(5):  # PLAY, then ROLL + PLAY per turn: 9 events
                assert p.turn() is None
            th.join(30)
            assert not th.is_alive() and "error" not in res, res
        r = res["replay"]
        assert r.m is not None and bytes(r.pos) == bytes(p.pos)
        text = out.getvalue()
        assert text.count("\n") > 20 and "(resynchronised)" not in text
    finally:
        sim.stop()
