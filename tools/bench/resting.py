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
"""

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAP = "160k"
BUDGET = 64 * 1024
MARGIN = 8 * 1024

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


def _heap(sim, settle=2.0):
    """The last probe line after ``settle`` seconds: (in use, free)."""
    time.sleep(settle)
    for line in reversed(sim.log):
        if line.startswith("heap: "):
            a, f = line.split()[1:3]
            return int(a), int(f)
    raise RuntimeError("no heap line from the probe:\n" + "\n".join(sim.log[-20:]))


def measure(heap=HEAP):
    from bg import board as B
    from gammon import link as L

    from tools.sim import demo, server
    from tools.sim.drive import free_port, pair_with_buttons

    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "probe"
        probe.mkdir()
        (probe / "heapprobe.py").write_text(_PROBE)
        os.environ["GAMMON_HOME"] = str(Path(tmp) / "home")
        popen = subprocess.Popen

        def with_probe(argv, env=None, **kw):
            # the simulator's own command, its frozen main.py replaced by the probe around it
            if argv[-2:] == ["-m", "main"]:
                argv = argv[:-1] + ["heapprobe"]
                env = dict(env, MICROPYPATH=env["MICROPYPATH"] + ":" + str(probe))
            return popen(argv, env=env, **kw)

        port = free_port()
        address = "tcp:127.0.0.1:%d" % port
        image = str(Path(tmp) / "flash.lfs")
        sim = server.Sim(image=image, seed="rest", link_port=port, rom="board", heap=heap)
        server.subprocess.Popen = with_probe
        try:
            sim.start()
        finally:
            server.subprocess.Popen = popen
        try:
            end = time.monotonic() + 20
            while not any("link: listening" in x for x in sim.log) and time.monotonic() < end:
                time.sleep(0.05)
            out = {"heap": heap}
            out["booted"] = _heap(sim)
            pair_with_buttons(sim, address, "bench")
            out["paired"] = _heap(sim)
            with L.connect(address) as c:
                c.info()
                out["logged_in"] = _heap(sim)
                # then a match, the host still logged in: its start, the opening, two turns
                p = demo.Player(sim, random.Random(3))
                sim.physical.set_start()
                sim.send_bits()
                p.pos = B.start_position()
                time.sleep(p.settle)
                p.press("roll0")
                p.start_game(False)
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
    res = {"board_model_32bit": measure()}
    (out / "resting.json").write_text(json.dumps(res, indent=2) + "\n")
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
