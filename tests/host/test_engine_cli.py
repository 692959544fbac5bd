"""``gammon plays`` against gnubg's generator and ``gammon show``; malformed input exits 2."""

import json
import random
from pathlib import Path

import pytest
from gammon import cli

gnubg_nn = pytest.importorskip("gnubg_nn")
# shared data lives beside the project (../shared from the project root); missing data fails
BENCH = Path(__file__).resolve().parents[3] / "shared" / "bench" / "positions_2000.json"


def _run(capsys, *argv):
    rc = cli.main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def _sample():
    assert BENCH.exists(), "benchmark set missing: %s (../shared from the project root)" % BENCH
    data = json.loads(BENCH.read_text())["positions"]
    return random.Random(5).sample(data, 60)


def test_plays_equal_gnubg_ids(capsys):
    for item in _sample():
        pid = item["id"]
        d1, d2 = item["dice"]
        rc, out, _ = _run(capsys, "plays", pid, "%d%d" % (d1, d2))
        assert rc == 0
        got = out.split()
        b = gnubg_nn.board_from_position_id(pid)
        want = sorted(
            {
                gnubg_nn.position_id([list(h) for h in gnubg_nn.board_from_position_key(k)])
                for k in gnubg_nn.moves(b, d1, d2)
            }
        )
        if not got:
            assert want in ([], [pid])  # the turn passes
        else:
            assert got == want, pid
            assert len(got) == item["plays"]


def test_plays_start_31_with_notation(capsys):
    rc, out, _ = _run(capsys, "plays", "4HPwATDgc/ABMA", "3-1", "--notation")
    lines = out.splitlines()
    assert rc == 0 and len(lines) == 16
    assert "4HPwATCwZ/ABMA  8/5 6/5" in lines


def test_plays_nothing_when_the_turn_passes(capsys):
    # side on roll on the bar against a closed board
    from bg import board, ids

    pos = board.from_points({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    rc, out, _ = _run(capsys, "plays", ids.position_id(pos, 0), "66")
    assert rc == 0 and out == ""


def test_show_draws_board_with_pips(capsys):
    rc, out, _ = _run(capsys, "show", "4HPwATDgc/ABMA")
    assert rc == 0 and out.count("pips 167") == 2 and "BAR" in out


@pytest.mark.parametrize(
    "argv",
    [
        ("plays", "4HPwATDgc/ABM", "31"),
        ("plays", "4HPwATDgc/ABMA", "71"),
        ("plays", "4HPwATDgc/ABMA", "3"),
        ("plays", "!!!!!!!!!!!!!!", "31"),
        ("show", "not-an-id"),
    ],
)
def test_malformed_input_exits_2(capsys, argv):
    rc, out, err = _run(capsys, *argv)
    assert rc == 2 and out == "" and err.startswith("gammon: error:") and err.count("\n") == 1
