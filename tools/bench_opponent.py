"""Benchmark of the computer's whole move on the controller (docs/controller.md "Playing the
computer"): from the player's confirm press to the computer's play shown on the LEDs -- the
player's PLAY recorded, the computer's throw (the cup, the fair dice) and its choice by
pubeval (``bg.engine.pubeval``) with the play's stages for the LEDs (``app.opponent``) -- over
the computer's turns of seeded matches, under the MicroPython unix port (64-bit) and the board
model (32-bit, the firmware frozen, the board's 64k heap).

    .venv/bin/python tools/bench_opponent.py OUTDIR      -> OUTDIR/opponent.json

Median and worst in ms; ``esp32_estimate_ms`` scales the unix port's figures by
``bench_link.ESP32_SLOWDOWN`` (an estimate, not a measurement: no ESP32 here). Also the heap
the match used (``gc.mem_alloc`` after a collection, at the end) and its growth between the
first and the last game (none expected)."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CODE = """
import gc, time
import ctl_helpers as H
from app import controller as C
from app import opponent as O
from bg.board import apply_step

times = []
heap = []
for seed in (1, 2, 3):
    c = H.make(computer=1, length=3)
    c.opp = O.Opponent(O.chooser("pubeval"))
    r = H.Robot(c, seed, drain=lambda k, f: None)
    r.set_start()
    r.press(0, C.ROLL)
    for _ in range(3000):
        if c.phase == C.MATCH_OVER:
            break
        if c.phase == C.GAME_OVER:
            r.press(0, C.ROLL)
            gc.collect()
            heap.append(gc.mem_alloc())
        if c.phase == C.OPENING:
            r.set_start()
            r.press(0, C.ROLL)
        elif c.phase == C.AWAIT_ROLL:
            r.press(0, C.ROLL)
        elif c.phase == C.MOVING and c.side == 0:
            play = r.pick_play()
            for k in range(0, len(play), 2):
                apply_step(r.pos, 0, play[k], play[k + 1])
            r.sense()
            t = time.ticks_us()
            r.press(0, C.ROLL)
            if c.phase == C.MOVING and c.side == 1:
                times.append(time.ticks_diff(time.ticks_us(), t))
        elif c.phase == C.MOVING:
            p = c.opp.plan
            for k in range(0, len(p), 2):
                apply_step(r.pos, 1, p[k], p[k + 1])
                r.sense()
    gc.collect()
    heap.append(gc.mem_alloc())
times.sort()
print(len(times), times[len(times) // 2], times[-1], heap[0], heap[-1], max(heap))
"""


def _run(argv, firmware):
    path = (firmware, str(ROOT / "tests" / "portable"))
    env = dict(os.environ, MICROPYPATH=":".join(path))
    r = subprocess.run(argv + ["-c", _CODE], capture_output=True, text=True, env=env, timeout=900)
    if r.returncode:
        raise RuntimeError(r.stdout + r.stderr)
    n, med, worst, h0, h1, hmax = (int(x) for x in r.stdout.split())
    return {
        "computer_moves": n,
        "move_median_ms": round(med / 1000, 1),
        "move_worst_ms": round(worst / 1000, 1),
        "heap_first_game_end_bytes": h0,
        "heap_last_game_end_bytes": h1,
        "heap_max_between_games_bytes": hmax,
    }


def main(argv):
    out = Path(argv[1] if len(argv) > 1 else ROOT / "build" / "bench")
    out.mkdir(parents=True, exist_ok=True)
    exe = Path(sys.executable).parent / "micropython"
    res = {"unix_port_64bit": _run([str(exe), "-X", "heapsize=256k"], str(ROOT / "firmware"))}
    sys.path.insert(0, str(ROOT / "tools"))
    import board_model

    exe = board_model.build()
    res["board_model_32bit_64k"] = _run([str(exe), "-X", "heapsize=64k"], ".frozen")
    from bench_link import ESP32_SLOWDOWN

    unix = res["unix_port_64bit"]
    res["esp32_estimate_ms"] = {
        k: round(unix[k] * ESP32_SLOWDOWN) for k in ("move_median_ms", "move_worst_ms")
    }
    (out / "opponent.json").write_text(json.dumps(res, indent=2) + "\n")
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
