"""The whole product's resting heap on the board model (docs/memory.md "The whole product at
rest"): the simulator's firmware frozen into the 32-bit build (``tools/board_model.py``), its
link serving, one host paired and logged in (a connection held open after INFO), and how
much of it each step keeps.

    .venv/bin/python -m tools.bench.resting OUTDIR      -> OUTDIR/resting.json

The firmware runs its own ``app.main.run()`` (``main.py``'s update step has no slot to lay over
here) under a probe module beside the frozen ones: every
half second, in the app's own event loop, ``gc.collect()`` then ``gc.mem_alloc()`` and
``gc.mem_free()`` (a line on its console). The probe is compiled from source into the same heap
(its function objects and module: ~0.3 kB), so the figures are an upper bound by that much.
The heap given is roomy (``HEAP``) so that the figure is what the product keeps, not what a
64k heap let it keep; ``fits_64k_with_8k`` compares it with the board's budget.

``collector_board_model_32bit``: the collector's cost (``App.boot`` sets ``gc.threshold``), in
a run of its own (a match started, no host): the time of the probe's ``gc.collect()`` with the
app's held heap (median), and the collector's runs at rest and in ``TURNS`` turns, seen by a
100 Hz ticker (a fall of ``gc.mem_alloc()`` between two ticks: only a collection frees; two
in one tick, or one that finds no garbage, count once, so the counts are at least), with the
ticker's longest stall (its lateness) over a tick that holds one. ``esp32_clock_estimate_us``
scales the collection by the clocks alone (this CPU's MHz / the ESP32's 160): the collector is
C scanning memory, not bytecode, so the bytecode calibration (``calib``, ~120x) is its upper
bound, not its estimate.
"""

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tools.bench import size

ROOT = Path(__file__).resolve().parents[2]
HEAP = "160k"
BUDGET = 64 * 1024
MARGIN = 8 * 1024
# the turns played while the collector's runs are counted (a run of its own: ``collector``)
TURNS = size(8, 2)
IDLE_S = size(3, 1)  # (and the time at rest, the match waiting for a move, where they are counted)
# the ESP32's clock by default (the esp32 port's: 160 MHz; 240 at most)
ESP32_MHZ = 160

_PROBE = """
import asyncio
import gc

from app import main as M

_run = M.App.run


async def _probe():
    while True:
        await asyncio.sleep_ms(500)
        gc.collect()
        print("heap: %d %d" % (gc.mem_alloc(), gc.mem_free()))


async def _with_probe(self):
    asyncio.create_task(_probe())
    await _run(self)


M.App.run = _with_probe
M.run()
"""

# The collector's probe (``collector``), in a run of its own: its code in the heap would move
# the resting figures (+0.2-0.5 kB when it was in theirs).
_GCPROBE = """
import asyncio
import gc
import time

from app import main as M

_run = M.App.run

# [the collector's runs seen, the longest stall with one in it (us), the longest stall (us), the
# heap in use when last seen, skip the next tick]
W = [0, 0, 0, 0, 1]


async def watch():
    # A 100 Hz ticker, as the scan task (and the stall bench's ticker): a fall of
    # gc.mem_alloc() since its last tick is a collection (only a collection frees what it did
    # not allocate), and its lateness is how long the other tasks held the loop, that
    # collection in it. It allocates nothing and turns the loop no more than the scan does
    # (a task that yields at every turn would: MicroPython allocates the frames of the loop's
    # own calls on the heap, and the threshold counts them).
    last = time.ticks_us()
    while True:
        await asyncio.sleep_ms(10)
        now = time.ticks_us()
        a = gc.mem_alloc()
        dt = time.ticks_diff(now, last) - 10000
        last = now
        if W[4]:
            W[4] = 0  # (the probe's own collection was in this tick)
        else:
            if a < W[3]:
                W[0] += 1
                if dt > W[1]:
                    W[1] = dt
            if dt > W[2]:
                W[2] = dt
        W[3] = a


async def _probe():
    asyncio.create_task(watch())
    while True:
        await asyncio.sleep_ms(500)
        print("gc: %d %d %d" % (W[0], W[1], W[2]))
        W[1] = W[2] = 0
        t = time.ticks_us()
        gc.collect()
        t = time.ticks_diff(time.ticks_us(), t)
        W[3] = gc.mem_alloc()
        W[4] = 1
        print("heap: %d %d %d" % (W[3], gc.mem_free(), t))


async def _with_probe(self):
    asyncio.create_task(_probe())
    await _run(self)


M.App.run = _with_probe
M.run()
"""


def _heap(sim, settle=2.0):
    """The last probe line after ``settle`` seconds: (in use, free)."""
    time.sleep(settle)
    for line in reversed(sim.log):
        if line.startswith("heap: "):
            a, f = line.split()[1:3]
            return int(a), int(f)
    raise RuntimeError("no heap line from the probe:\n" + "\n".join(sim.log[-20:]))


def _collector(sim, settle=1.2):
    """After ``settle`` seconds without play: (the index in the log, the collections so far)."""
    time.sleep(settle)
    for i in range(len(sim.log) - 1, -1, -1):
        if sim.log[i].startswith("gc: "):
            return i, int(sim.log[i].split()[1])
    raise RuntimeError("no gc line from the probe:\n" + "\n".join(sim.log[-20:]))


def _collections(sim, player):
    """The collector with the app's held heap, a match under way: the probe's timed
    collections (every half second), the collector's runs seen at rest for ``IDLE_S`` seconds
    and in ``TURNS`` turns, and the ticker's longest stall over a collection."""
    rest = _collector(sim)
    idle = _collector(sim, IDLE_S)
    t0 = time.monotonic()
    for _ in range(TURNS):
        player.turn()
    played = time.monotonic() - t0
    i, n = _collector(sim, 0.6)
    lines = sim.log[idle[0] + 1 : i + 1]
    gcs = [[int(x) for x in line.split()[1:]] for line in lines if line.startswith("gc: ")]
    heap = [[int(x) for x in line.split()[1:]] for line in lines if line.startswith("heap: ")]
    times = [h[2] for h in heap]
    us = statistics.median(times)
    mhz = _host_mhz()
    return {
        "idle_collections_per_s": round((idle[1] - rest[1]) / IDLE_S, 1),
        "turns": TURNS,
        "turns_s": round(played, 2),
        "collections": n - idle[1],
        "collections_per_turn": round((n - idle[1]) / TURNS, 1),
        "longest_stall_with_collection_us": max(g[1] for g in gcs),
        "longest_stall_us": max(g[2] for g in gcs),
        "held_bytes": heap[-1][0],
        "probe_collections": len(times),
        "collect_us_median": us,
        "collect_us_max": max(times),
        "host_mhz": mhz,
        "esp32_clock_estimate_us": round(us * mhz / ESP32_MHZ),
    }


def _host_mhz():
    """This CPU's clock (MHz) as Linux reports it (the first core's)."""
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("cpu MHz"):
            return round(float(line.split(":")[1]))
    raise RuntimeError("no cpu MHz in /proc/cpuinfo")


def _start(tmp, probe, heap, **kw):
    """The simulator with the board model as firmware, its frozen main.py replaced by the
    probe module ``probe`` (``heapprobe``, ``gcprobe``) around it, its link listening."""
    from tools.sim import server

    folder = Path(tmp) / "probe"
    folder.mkdir(exist_ok=True)
    (folder / (probe + ".py")).write_text({"heapprobe": _PROBE, "gcprobe": _GCPROBE}[probe])
    popen = subprocess.Popen

    def with_probe(argv, env=None, **kw):
        # the simulator's own command, its frozen main.py replaced by the probe around it
        if argv[-2:] == ["-m", "main"]:
            argv = argv[:-1] + [probe]
            env = dict(env, MICROPYPATH=env["MICROPYPATH"] + ":" + str(folder))
        return popen(argv, env=env, **kw)

    image = str(Path(tmp) / (probe + ".lfs"))
    sim = server.Sim(image=image, seed="rest", rom="board", heap=heap, **kw)
    server.subprocess.Popen = with_probe
    try:
        sim.start()
    finally:
        server.subprocess.Popen = popen
    end = time.monotonic() + 20
    while not any("link: listening" in x for x in sim.log) and time.monotonic() < end:
        time.sleep(0.05)
    return sim


def _match(sim):
    """A match started on ``sim``: its opening roll; the player (``tools.sim.demo``) to go on."""
    from bg import board as B

    from tools.sim import demo

    p = demo.Player(sim, random.Random(3))
    sim.physical.set_start()
    sim.send_bits()
    p.pos = B.start_position()
    time.sleep(p.settle)
    p.press("roll0")
    p.start_game(False)
    return p


def collector(heap=HEAP):
    """The collector's cost on the board model, the real App booted and a match under way
    (its own run of the simulator: ``_GCPROBE``)."""
    from tools.sim.drive import free_port

    with tempfile.TemporaryDirectory() as tmp:
        sim = _start(tmp, "gcprobe", heap, link_port=free_port())
        try:
            return dict(_collections(sim, _match(sim)), heap=heap)
        finally:
            sim.stop()


def measure(heap=HEAP):
    from gammon import link as L

    from tools.sim.drive import free_port, pair_with_buttons

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["GAMMON_HOME"] = str(Path(tmp) / "home")
        port = free_port()
        address = "tcp:127.0.0.1:%d" % port
        sim = _start(tmp, "heapprobe", heap, link_port=port)
        try:
            out = {"heap": heap}
            out["booted"] = _heap(sim)
            pair_with_buttons(sim, address, "bench")
            out["paired"] = _heap(sim)
            with L.connect(address) as c:
                c.info()
                out["logged_in"] = _heap(sim)
                # then a match, the host still logged in: its start, the opening, two turns
                p = _match(sim)
                for _ in range(2):
                    p.turn()
                out["playing"] = _heap(sim)
                c.info()
            out["after_logout"] = _heap(sim)
        finally:
            sim.stop()
    use = max(out["logged_in"][0], out["playing"][0])
    out["whole_product_bytes"] = use
    out["fits_64k_with_8k"] = use + MARGIN <= BUDGET
    out["short_of_64k_with_8k_bytes"] = max(0, use + MARGIN - BUDGET)
    return out


def main(argv):
    out = Path(argv[1] if len(argv) > 1 else ROOT / "build" / "bench")
    out.mkdir(parents=True, exist_ok=True)
    res = {"board_model_32bit": measure(), "collector_board_model_32bit": collector()}
    (out / "resting.json").write_text(json.dumps(res, indent=2) + "\n")
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
