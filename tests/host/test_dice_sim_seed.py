"""Dice the board cannot choose, end to end against the running simulator (the real firmware,
``app.main``, under MicroPython, its link on a local socket): a paired host watching the board
sees the new match's commitment (``MATCH_START``) before the opening, sends 16 random bytes
by itself and remembers the commitment; the board journals the host's part naming it; after
the match ``gammon verify`` passes and says the dice came from host 'laptop' + button timing.
Run as ``make sim`` runs it and on the board model (32-bit, the board's 64k)."""

import io
import random
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "sim"))

import demo  # noqa: E402
import link_scenario as S  # noqa: E402
import server  # noqa: E402
from bg import board as B  # noqa: E402
from bg import record  # noqa: E402
from gammon import link as L  # noqa: E402
from gammon.cli import main  # noqa: E402
from gammon.commands.library import watch_loop  # noqa: E402
from gammon.library import Library  # noqa: E402
from test_sim_watch import MODES, _hold_both_rolls  # noqa: E402


def _wait_log(sim, text, timeout=10):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if any(text in x for x in sim.log):
            return
        time.sleep(0.05)
    raise AssertionError("%r never logged: %s" % (text, sim.log[-10:]))


@pytest.mark.parametrize("rom,heap", MODES, ids=["rom-image", "board-model"])
def test_a_watching_host_seeds_the_dice_and_verify_names_it(tmp_path, monkeypatch, capsys, rom, heap):
    monkeypatch.setenv("GAMMON_CONFIG_DIR", str(tmp_path / "cfg"))
    monkeypatch.setenv("GAMMON_HOME", str(tmp_path / "home"))
    port = S.free_port()
    img = tmp_path / "flash.lfs"
    sim = server.Sim(image=str(img), settings={"length": 1}, seed="dice", link_port=port, heap=heap, rom=rom)
    sim.start()
    address = "tcp:127.0.0.1:%d" % port
    try:
        _wait_log(sim, "link: listening")
        _hold_both_rolls(sim)

        def code(value):  # numeric comparison: the board shows the same number; press ROLL
            _wait_log(sim, "pairing code: ")
            shown = [x.split()[-1] for x in sim.log if x.startswith("pairing code: ")][-1]
            assert shown == value, (shown, value)
            roll = [b["name"] for b in sim.board["buttons"]].index("roll0")
            sim.button(roll, 1)
            time.sleep(0.15)
            sim.button(roll, 0)

        L.pair(address, code, host_name="laptop")
        res = {}
        with L.connect(address) as c:

            def watch():
                try:
                    with Library.open() as lib:
                        watch_loop(c, out=io.StringIO(), clear=False, max_events=2, lib=lib)
                except Exception as e:  # noqa: BLE001 - reported by the assertion below
                    res["error"] = e

            th = threading.Thread(target=watch, daemon=True)
            th.start()
            time.sleep(1.5)  # the host is watching now
            p = demo.Player(sim, random.Random(3))
            sim.physical.set_start()
            sim.send_bits()
            p.pos = B.start_position()
            time.sleep(p.settle)
            p.press("roll0")  # IDLE -> the match exists: MATCH_START (its commitment) goes out
            _wait_log(sim, "SEED_PART")  # the host's part, before anyone threw
            th.join(30)
            assert not th.is_alive() and "error" not in res, res
        p.start_game(False)  # the opening press: the buttons' part, GAME_START, OPENING
        end = None
        while end is None:
            end = p.turn()
        assert p.con.next(("MATCH_END",), timeout=5)
    finally:
        sim.stop()
    [(path, acts, msg, _)] = demo.check_journal(str(img))
    assert msg.startswith("PASS"), msg
    kinds = [k for k, _ in acts]
    assert kinds[:4] == [record.MATCH_START, record.SEED_PART, record.SEED_PART, record.GAME_START]
    assert acts[1][1][:2] == (1, "laptop") and acts[2][1][0] == 2
    mid = acts[0][1][0]
    with Library.open() as lib:
        assert lib.remembered_commitment(mid) == (acts[0][1][9], acts[1][1][2])
    f = tmp_path / "match.m"
    f.write_bytes(b"".join(record.encode(k, fl) for k, fl in acts))
    capsys.readouterr()
    assert main(["verify", str(f)]) == 0
    assert "player seed from host 'laptop' + button timing" in capsys.readouterr().out
