"""The same pubeval choices on MicroPython as on CPython (and so as gnubg's pub_best_move,
``test_pubeval_oracle.py``): the first 300 benchmark positions through ``bg.engine.pubeval``
on the pip unix port (64-bit, firmware from source) and on the board model (32-bit, firmware
frozen, the board's 64k heap -- the integer sums there are the ones that must stay small
ints)."""

import json
from pathlib import Path

from bg import ids
from bg.engine import pubeval

from tools import mpy

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT.parent / "shared" / "bench" / "positions_2000.json"
N = 300

SCRIPT = r"""
import sys
from bg import ids
from bg.engine import pubeval
pe = pubeval.PubEval()
with open(sys.argv[1]) as f:
    for line in f:
        pid, d1, d2 = line.split()
        pos = ids.decode_position_id(pid, side_on_roll=1)
        s = pe.best(pos, 1, int(d1), int(d2))
        print(" ".join(str(v) for v in s) + " ; " + str(pe.top))
print("done")
"""


def _cases(tmp_path):
    data = json.loads(BENCH.read_text())["positions"][:N]
    lines = ["%s %d %d" % (d["id"], d["dice"][0], d["dice"][1]) for d in data]
    path = tmp_path / "cases.txt"
    path.write_text("\n".join(lines) + "\n")
    pe = pubeval.PubEval()
    want = []
    for d in data:
        s = pe.best(ids.decode_position_id(d["id"], side_on_roll=1), 1, d["dice"][0], d["dice"][1])
        want.append(" ".join(str(v) for v in s) + " ; " + str(pe.top))
    return path, want


def _run(tmp_path, heap, firmware):
    script = tmp_path / "pubeval_choices.py"
    script.write_text(SCRIPT)
    proc = mpy.run([script, tmp_path / "cases.txt"], heap=heap, firmware=firmware, timeout=600)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    lines = proc.stdout.splitlines()
    assert lines[-1] == "done"
    return lines[:-1]


def test_same_choices_on_the_unix_port(tmp_path):
    path, want = _cases(tmp_path)
    got = _run(tmp_path, "256k", "source")
    assert got == want
    assert sum(1 for w in want if w.startswith(" ;")) < N  # not all passes


def test_same_choices_on_the_board_model(tmp_path):
    path, want = _cases(tmp_path)
    got = _run(tmp_path, "64k", "board")
    assert got == want
