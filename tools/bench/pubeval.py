"""Benchmark the computer opponent (``bg.engine.pubeval``): time per computer move.

Usage::

    .venv/bin/python -m tools.bench.pubeval OUTDIR     # writes OUTDIR/pubeval.json

The same games everywhere: pubeval plays both sides of ``GAMES`` games from the start position
with seeded dice (a linear congruential generator, the same numbers on every interpreter), and
every ``best()`` call is timed on its own. Figures:

- ``<where>_move_us_median`` / ``_worst`` / ``moves``: per computer move (a move with no
  choice -- one play or none -- included: the device runs the same call), on CPython, the
  MicroPython unix port (64-bit, firmware from source) and the board model
  (``tools/board_model.py``: 32-bit, firmware frozen, ``-X heapsize=64k`` as on the ESP32);
- ``<where>_worst_position_us``: the issue's worst position (1-1, 2,140 plays);
- ``<where>_heap_growth_bytes``: ``gc.mem_alloc`` after the games minus before (collected);
- ``board_model_free_bytes_after_games``: free heap at 64k after the games, collected (the
  bench's own 6,000-entry list of times, ~24 KB there, included);
- ``gnubg_agree`` / ``gnubg_positions``: the 2,000 benchmark positions on which the chosen
  resulting position equals ``gnubg_nn.pub_best_move``'s (when gnubg_nn is installed).

The unix port on a PC is ~10-30x faster than an ESP32 at 240 MHz (docs/memory.md): a move of
~1 ms here is some 10-30 ms on the board.
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from gammon._paths import ENGINE_PATHS

from tools import mpy
from tools.bench import size

ROOT = Path(__file__).resolve().parents[2]

GAMES = size(30, 1)

SCRIPT = r"""
import gc, sys
try:
    from time import ticks_us, ticks_diff
except ImportError:
    from time import perf_counter
    def ticks_us():
        return int(perf_counter() * 1000000)
    def ticks_diff(a, b):
        return a - b
from bg import board
from bg import engine as movegen
from bg.engine import pubeval
GAMES = int(sys.argv[1])
gen = movegen.MoveGen()
pe = pubeval.PubEval(gen)
x = 20261124
times = [0] * 6000  # preallocated: the bench's own figures must not grow the heap it measures
nt = 0
mem = hasattr(gc, "mem_alloc")
def die():
    global x
    x = (x * 1103515245 + 12345) & 0x7FFFFFFF
    return 1 + (x >> 16) % 6
def game():
    global nt
    pos = board.start_position()
    d1 = d2 = 0
    while d1 == d2:
        d1 = die(); d2 = die()
    side = 0 if d1 > d2 else 1
    while True:
        t0 = ticks_us()
        steps = pe.best(pos, side, d1, d2)
        if nt < 6000:
            times[nt] = ticks_diff(ticks_us(), t0)
            nt += 1
        gen.apply(pos, side, steps)
        if pos[50 + side] == 15:
            return
        side = 1 - side
        d1 = die(); d2 = die()
game()
nt = 0
gc.collect()
before = gc.mem_alloc() if mem else 0
for _ in range(GAMES):
    game()
gc.collect()
grown = (gc.mem_alloc() - before) if mem else 0
free_after = gc.mem_free() if mem else -1
singles = {}
for p in (3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 17, 19, 20, 22, 23):
    singles[p] = 1
w = board.from_points(singles, {1: 2})
best_w = 1 << 30
for _ in range(3):
    t0 = ticks_us()
    pe.best(w, 0, 1, 1)
    t = ticks_diff(ticks_us(), t0)
    if t < best_w:
        best_w = t
times = sorted(times[:nt])
print("RESULT", nt, times[nt // 2], times[-1], best_w, grown, free_after)
"""


def _parse(stdout):
    line = [ln for ln in stdout.splitlines() if ln.startswith("RESULT")]
    if not line:
        return None
    n, med, worst, wpos, grown, free_after = (int(v) for v in line[0].split()[1:])
    return {
        "moves": n,
        "move_us_median": med,
        "move_us_worst": worst,
        "worst_position_us": wpos,
        "heap_growth_bytes": grown,
        "free_bytes_after_games": free_after,
    }


def run(where, script):
    """The games on ``where``: "cpython", "unix_port" (firmware from source, 256k) or
    "board_model" (64k, firmware frozen)."""
    if where == "cpython":
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(map(str, ENGINE_PATHS)))
        cmd = [sys.executable, script, str(GAMES)]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(ROOT), timeout=900)
    elif where == "unix_port":
        proc = mpy.run([script, GAMES], heap="256k", timeout=900)
    else:
        proc = mpy.run([script, GAMES], heap="64k", firmware="board", timeout=900)
    r = _parse(proc.stdout)
    if proc.returncode or r is None:
        print((proc.stdout + proc.stderr)[-3000:])
    return r


def gnubg_agreement():
    try:
        import gnubg_nn
    except ImportError:
        return {}
    from bg import board, ids
    from bg import engine as movegen
    from bg.engine import pubeval

    data = json.loads((ROOT.parent / "shared" / "bench" / "positions_2000.json").read_text())["positions"]
    data = data[: size(None, 20)]
    gen = movegen.MoveGen()
    pe = pubeval.PubEval(gen)
    agree = 0
    for d in data:
        pos = ids.decode_position_id(d["id"], side_on_roll=1)
        d1, d2 = d["dice"]
        ours = gen.apply(bytearray(pos), 1, pe.best(pos, 1, d1, d2))
        mv = gnubg_nn.pub_best_move([list(h) for h in board.to_gnubg(pos, 1)], d1, d2)
        theirs = gen.apply(bytearray(pos), 1, tuple(25 if v == 24 else 0 if v == -1 else v + 1 for v in mv))
        agree += ours == theirs
    return {"gnubg_agree": agree, "gnubg_positions": len(data)}


def main(argv):
    if len(argv) != 1:
        print("usage: python -m tools.bench.pubeval OUTDIR")
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    res = {"games": GAMES}
    with tempfile.TemporaryDirectory() as tmp:
        script = str(Path(tmp) / "pubeval_games.py")
        Path(script).write_text(SCRIPT)
        for name in ("cpython", "unix_port", "board_model"):
            r = run(name, script)
            if r is None:
                return 1
            for k, v in r.items():
                if name == "cpython" and k in ("heap_growth_bytes", "free_bytes_after_games"):
                    continue
                if name == "unix_port" and k == "free_bytes_after_games":
                    continue
                res["%s_%s" % (name, k)] = v
    res.update(gnubg_agreement())
    (out / "pubeval.json").write_text(json.dumps(res, indent=2) + "\n")
    print(
        "pubeval: per move median/worst: CPython %d/%d us, unix port %d/%d us, board model %d/%d us "
        "(%d moves); worst position %d/%d/%d us; board model heap growth %d bytes, free after %d; "
        "gnubg agrees on %s/%s"
        % (
            res["cpython_move_us_median"],
            res["cpython_move_us_worst"],
            res["unix_port_move_us_median"],
            res["unix_port_move_us_worst"],
            res["board_model_move_us_median"],
            res["board_model_move_us_worst"],
            res["cpython_moves"],
            res["cpython_worst_position_us"],
            res["unix_port_worst_position_us"],
            res["board_model_worst_position_us"],
            res["board_model_heap_growth_bytes"],
            res["board_model_free_bytes_after_games"],
            res.get("gnubg_agree", "-"),
            res.get("gnubg_positions", "-"),
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
