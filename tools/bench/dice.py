"""Dice benchmark: throws per second and heap allocated per throw.

    .venv/bin/python -m tools.bench.dice OUTDIR      -> OUTDIR/dice.json

MicroPython (unix port, ``-X heapsize=64k`` like the tests): ``Fairness.roll()`` (the
controller's throw: it gates the presses itself) timed with ``time.ticks_us``; heap per
throw from ``gc.mem_alloc()`` deltas with the collector disabled (so nothing is freed behind
the count); the RAM the dice modules keep once imported (``bg.dice.cup``: the opening rule).
CPython: throws per second of the same code and of ``verify_transcript``.
The ESP32 itself is slower (240 MHz Xtensa, hashlib in C either way): the unix-port figure is
an upper bound on speed, the allocation figure is the same on the device.
"""

import json
import sys
import time
from pathlib import Path

from tools import mpy
from tools.bench import size

ROOT = Path(__file__).resolve().parents[2]

MPY_SCRIPT = r"""
import gc, time
gc.collect()
m0 = gc.mem_alloc()
import bg.dice
gc.collect()
m1 = gc.mem_alloc()
import bg.dice.fairness
gc.collect()
m2 = gc.mem_alloc()
import bg.dice.cup
gc.collect()
m3 = gc.mem_alloc()
from bg.dice.fairness import Fairness
f = Fairness(bytes(8), bytes(range(32)))
f.set_player_seed(bytes(16))
f.fix()
N = %(n)d
NA = 40  # with the collector off the heap must hold every allocation: 40 throws fit in 64k
for _ in range(20):  # warm up
    f.roll()
gc.collect()
gc.disable()
a = gc.mem_alloc()
for _ in range(NA):
    f.roll()
roll_alloc = gc.mem_alloc() - a
gc.enable()
gc.collect()
t = time.ticks_us()
for _ in range(N):
    f.roll()
dt = time.ticks_diff(time.ticks_us(), t)
print("RESULT", m1 - m0, m2 - m1, m3 - m2, roll_alloc, dt, N, NA, gc.mem_free())
"""


def micropython(n):
    proc = mpy.run(["-c", MPY_SCRIPT % {"n": n}], heap="64k", timeout=300)
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT")]
    if proc.returncode or not line:
        raise SystemExit("micropython run failed:\n" + proc.stdout + proc.stderr)
    v = [int(x) for x in line[0].split()[1:]]
    ram_dice, ram_match, ram_cup, roll_alloc, dt_us, n, na, free = v
    return {
        "micropython_heap": "64k",
        "micropython_rolls_per_s": round(n / (dt_us / 1e6)),
        "micropython_us_per_roll": round(dt_us / n, 2),
        "micropython_heap_bytes_per_roll": round(roll_alloc / na, 1),
        "micropython_module_ram_bytes": {
            "bg.dice": ram_dice,
            "bg.dice.fairness": ram_match,
            "bg.dice.cup": ram_cup,
        },
        "micropython_heap_free_after_bytes": free,
    }


def cpython(n):
    from bg import dice
    from bg.dice.fairness import Fairness

    f = Fairness(bytes(8), bytes(range(32)))
    f.fix()
    t = time.perf_counter()
    for _ in range(n):
        f.roll()
    roll_s = time.perf_counter() - t
    rolls = dice.derive_rolls(bytes(8), bytes(range(32)), None, n)
    com = dice.commitment(bytes(8), bytes(range(32)))
    t = time.perf_counter()
    ok, _, _ = dice.verify_transcript(bytes(8), com, bytes(range(32)), None, rolls)
    ver_s = time.perf_counter() - t
    assert ok
    return {
        "cpython_rolls_per_s": round(n / roll_s),
        "cpython_us_per_roll": round(roll_s / n * 1e6, 3),
        "cpython_verify_throws_per_s": round(n / ver_s),
    }


def main(argv):
    out = Path(argv[1] if len(argv) > 1 else ROOT / "build" / "bench")
    out.mkdir(parents=True, exist_ok=True)
    n = size(20000, 200)
    res = {"rolls_measured": n}
    res.update(micropython(n))
    res.update(cpython(10 * n))
    (out / "dice.json").write_text(json.dumps(res, indent=2) + "\n")
    print(
        "dice: MicroPython %d rolls/s, %.1f heap bytes/roll; CPython %d rolls/s, "
        "verify %d throws/s"
        % (
            res["micropython_rolls_per_s"],
            res["micropython_heap_bytes_per_roll"],
            res["cpython_rolls_per_s"],
            res["cpython_verify_throws_per_s"],
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
