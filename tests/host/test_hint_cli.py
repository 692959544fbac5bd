"""``gammon hint`` against GNU Backgammon: with pubeval (the default) it prints the play of
``gnubg_nn.pub_best_move``, with ``--engine gnubg`` the play of ``gnubg_nn.best_move`` at the
ply, on the 2,000 benchmark positions; the notation reads back to the same position; bad input
exits 2 with one line."""

import json
import random
from pathlib import Path

import pytest
from bg import engine as movegen
from bg import ids, notation
from gammon import cli

gnubg_nn = pytest.importorskip("gnubg_nn")
BENCH = Path(__file__).resolve().parents[3] / "shared" / "bench" / "positions_2000.json"


def _bench():
    assert BENCH.exists(), "benchmark set missing: %s (../shared from the project root)" % BENCH
    data = json.loads(BENCH.read_text())["positions"]
    assert len(data) == 2000
    return data


def _run(capsys, *argv):
    rc = cli.main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def _check_line(out, pid, d1, d2, want_id):
    """One line: the resulting ID, two spaces, the notation (or ``no legal play``)."""
    lines = out.splitlines()
    assert len(lines) == 1, out
    got_id, _, text = lines[0].partition("  ")
    assert got_id == want_id, (pid, d1, d2, lines[0])
    pos = ids.decode_position_id(pid)
    if want_id == pid and text == "no legal play":
        assert movegen.no_play(pos, 0, d1, d2)
        return
    steps = notation.parse_play(text, pos, 0, dice=(d1, d2))
    end = movegen.apply(bytearray(pos), 0, steps)
    assert ids.position_id(end, 0) == want_id, (pid, text)


def _gnubg_board(pid):
    return [list(h) for h in gnubg_nn.board_from_position_id(pid)]


def test_hint_pubeval_equals_gnubg_pub_best_move(capsys):
    passes = 0
    for item in _bench():
        pid = item["id"]
        d1, d2 = item["dice"]
        rc, out, _ = _run(capsys, "hint", pid, "%d%d" % (d1, d2))
        assert rc == 0
        mv = gnubg_nn.pub_best_move(_gnubg_board(pid), d1, d2)
        steps = tuple(25 if v == 24 else 0 if v == -1 else v + 1 for v in mv)
        if not steps:
            passes += 1
        end = movegen.apply(bytearray(ids.decode_position_id(pid)), 0, steps)
        _check_line(out, pid, d1, d2, ids.position_id(end, 0))
    assert passes == 107


def _gnubg_best_id(pid, d1, d2, ply):
    """gnubg's chosen resulting position as a Position ID with the mover still on roll (its
    board comes back with the opponent on roll: the halves swapped)."""
    moves, key = gnubg_nn.best_move(_gnubg_board(pid), d1, d2, n=ply, b=1)
    if not moves:
        return pid
    half = gnubg_nn.board_from_position_key(key)
    return gnubg_nn.position_id([list(half[1]), list(half[0])])


def test_hint_gnubg_equals_best_move_at_ply_0(capsys):
    for item in _bench():
        pid = item["id"]
        d1, d2 = item["dice"]
        rc, out, _ = _run(capsys, "hint", pid, "%d-%d" % (d1, d2), "--engine", "gnubg")
        assert rc == 0
        _check_line(out, pid, d1, d2, _gnubg_best_id(pid, d1, d2, 0))


def test_hint_gnubg_at_ply_1_and_start_position(capsys):
    for item in random.Random(16).sample(_bench(), 40):
        pid = item["id"]
        d1, d2 = item["dice"]
        rc, out, _ = _run(capsys, "hint", pid, "%d%d" % (d1, d2), "--engine", "gnubg", "--ply", "1")
        assert rc == 0
        _check_line(out, pid, d1, d2, _gnubg_best_id(pid, d1, d2, 1))
    rc, out, _ = _run(capsys, "hint", "4HPwATDgc/ABMA", "31")
    assert rc == 0 and out == "4HPwATCwZ/ABMA  8/5 6/5\n"


@pytest.mark.parametrize(
    "argv, words",
    [
        (("4HPwATDgc/ABM", "31"), "14 characters"),
        (("4HPwATDgc/AB!A", "31"), "Position ID"),
        (("4HPwATDgc/ABMA", "71"), "dice"),
        (("4HPwATDgc/ABMA", "3"), "dice"),
        (("4HPwATDgc/ABMA", "31", "--engine", "gnubg", "--ply", "4"), "--ply must be 0..3"),
        (("4HPwATDgc/ABMA", "31", "--engine", "gnubg", "--ply", "-1"), "--ply must be 0..3"),
        (("4HPwATDgc/ABMA", "31", "--ply", "1"), "--ply is for --engine gnubg"),
    ],
)
def test_hint_bad_input_exits_2_with_one_line(capsys, argv, words):
    rc, out, err = _run(capsys, "hint", *argv)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("gammon: error: ") and words in err, err


def test_hint_unknown_engine_is_refused(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["hint", "4HPwATDgc/ABMA", "31", "--engine", "gnu"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "--engine: invalid choice: 'gnu'" in err and "pubeval" in err, err
