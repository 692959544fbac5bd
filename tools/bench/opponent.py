"""Benchmark of the computer's whole move on the controller (docs/controller.md "Playing the
computer"): from the player's confirm press to the computer's play shown on the LEDs -- the
player's PLAY recorded, the computer's throw (the cup, the fair dice) and its choice by
pubeval (``bg.engine.pubeval``) with the play's stages for the LEDs (``app.opponent``) -- over
the computer's turns of seeded matches, under the MicroPython unix port (64-bit) and the board
model (32-bit, the firmware frozen, the board's 64k heap).

    .venv/bin/python -m tools.bench.opponent OUTDIR      -> OUTDIR/opponent.json

Median and worst in ms; ``esp32_estimate_ms`` scales the unix port's figures by the same run's
unix port -> ESP32 calibration (area ``calib``, ``esp32_ratio``: an estimate, not a
measurement: no ESP32 here). Also the heap
the match used (``gc.mem_alloc`` after a collection, at the end) and its growth between the
first and the last game (none expected); and 100 games of computer against computer on one
controller at the board's 64k (``computer_vs_computer_board_model_64k``: the heap after every
game, the mean of the last ten against the first ten)."""

import json
import sys
from pathlib import Path

from tools import mpy
from tools.bench import calib, size

ROOT = Path(__file__).resolve().parents[2]
# the matches' seeds and length, the computer-against-computer games (the smoke run: fewer)
SIZES = "SEEDS = %r\nLENGTH = %d\nGAMES = %d\n" % (size((1, 2, 3), (1,)), size(3, 1), size(100, 2))

_CODE = """
import gc, time
import ctl_helpers as H
from app import controller as C
from app import opponent as O
from app import search as S
from bg.board import apply_step

times = []
heap = []
for seed in SEEDS:
    c = H.make(computer=1, length=LENGTH)
    c.opp = O.Opponent(S.chooser("pubeval"))
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


# Computer against computer: the board's computer (side 1, app.opponent, pubeval) against a
# second pubeval deciding side 0's plays, 100 games of money play on one controller (the
# journal's records drained as the app does); the heap after a collection at every game's end.
_CVC_CODE = """
import gc
import ctl_helpers as H
from app import controller as C
from app import opponent as O
from app import search as S
from bg.board import apply_step
from bg.engine.pubeval import PubEval

c = H.make(computer=1, length=0)
c.opp = O.Opponent(S.chooser("pubeval"))
other = PubEval()
r = H.Robot(c, 9, drain=lambda k, f: None)
r.set_start()
r.press(0, C.ROLL)
heap = [0] * GAMES  # made before the first figure: a list growing here would be the growth
games = 0
seen = None  # the last computer play the robot made on the physical board


def catch_up():
    # a computer play moving a checker between two points that both hold more checkers than
    # their sensor slots reads like no move: the board records it at once, and the player
    # moves it as the LEDs showed
    global seen
    lp = c.last_play
    if lp is not None and lp is not seen and lp[0] == 1:
        seen = lp
        if bytes(r.pos) != bytes(c.mt.pos):
            for k in range(0, len(lp[1]), 2):
                apply_step(r.pos, 1, lp[1][k], lp[1][k + 1])
            r.sense()


for _ in range(200000):
    catch_up()
    ph = c.phase
    if ph == C.AWAIT_ROLL and bytes(r.pos) != bytes(c.mt.pos):
        raise RuntimeError("the board and the checkers differ after game %d" % games)
    if ph == C.GAME_OVER:
        gc.collect()
        heap[games] = gc.mem_alloc()
        games += 1
        if games == GAMES:
            break
        r.press(0, C.ROLL)
    elif ph == C.OPENING:
        r.set_start()
        r.press(0, C.ROLL)
    elif ph == C.AWAIT_ROLL:
        r.press(0, C.ROLL)
    elif ph == C.MOVING and c.side == 0:
        play = other.best(c.mt.pos, 0, c.dice[0], c.dice[1])
        for k in range(0, len(play), 2):
            apply_step(r.pos, 0, play[k], play[k + 1])
        r.sense()
        r.press(0, C.ROLL)
        if c.phase == C.MOVING and c.side == 0 and c.choices:
            r.choose(0)
    elif ph == C.MOVING:
        p = c.opp.plan
        for k in range(0, len(p), 2):
            apply_step(r.pos, 1, p[k], p[k + 1])
            r.sense()
        seen = c.last_play
    else:
        raise RuntimeError("phase %d" % ph)
first = sum(heap[:10]) // 10
last = sum(heap[-10:]) // 10
print(games, heap[0], heap[-1], max(heap), first, last, c.mt.score[0], c.mt.score[1])
"""


def _mpy(firmware, heap, code, timeout):
    """Run ``code`` on MicroPython (``tools.mpy``'s ``firmware``: "source" or "board") with the
    controller's harness on its path; its output's numbers."""
    r = mpy.run(
        ["-c", SIZES + code], heap=heap, firmware=firmware, path=[mpy.HARNESS], timeout=timeout, check=True
    )
    return (int(x) for x in r.stdout.split())


def _run_cvc(firmware, heap):
    games, h0, h1, hmax, first10, last10, s0, s1 = _mpy(firmware, heap, _CVC_CODE, 1800)
    return {
        "games": games,
        "points_won": [s0, s1],
        "heap_after_game_1_bytes": h0,
        "heap_after_game_100_bytes": h1,
        "heap_max_after_a_game_bytes": hmax,
        "heap_mean_first_10_bytes": first10,
        "heap_mean_last_10_bytes": last10,
        "heap_growth_bytes": last10 - first10,
    }


def _run(firmware, heap):
    n, med, worst, h0, h1, hmax = _mpy(firmware, heap, _CODE, 900)
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
    # the firmware compiled from source into this heap: 256k failed compiling at an absolute
    # checkout path (fragmentation), 272k passed: declared with room for other paths
    res = {"unix_port_64bit": _run("source", "320k")}
    res["board_model_32bit_64k"] = _run("board", "64k")
    res["computer_vs_computer_board_model_64k"] = _run_cvc("board", "64k")
    ratio = calib.ratio(out)
    res["esp32_ratio"] = ratio
    unix = res["unix_port_64bit"]
    res["esp32_estimate_ms"] = {k: round(unix[k] * ratio) for k in ("move_median_ms", "move_worst_ms")}
    (out / "opponent.json").write_text(json.dumps(res, indent=2) + "\n")
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
