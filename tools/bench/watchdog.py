"""Benchmark the watchdog supervisor and the crash log on the board model (MicroPython built
32-bit with the firmware frozen in, ``-X heapsize=64k``: the board's heap; tools/board_model.py).

Usage::

    .venv/bin/python -m tools.bench.watchdog OUTDIR     # writes OUTDIR/watchdog.json

Measures:

- ``supervisor_heap_bytes``: what ``app.supervisor`` + ``app.watch`` keep in the heap with the
  four essential tasks registered (module objects and the supervisor; the bytecode is frozen;
  ``bg.crashlog`` is not resident: imported for a write, released after the boot entry);
- ``crashlog_heap_bytes``: what ``bg.crashlog`` keeps while imported, and
  ``crashlog_add_peak_bytes``: the heap one ``add()`` to a full log allocates (gc off);
- ``round_us`` / ``round_heap_bytes``: one supervisor round -- four heartbeats and one check
  that feeds -- its time and its allocation (target 0);
- ``beat_us``: one heartbeat.

The unix port on a PC is ~10-30x faster than an ESP32 at 240 MHz.
"""

import json
import sys
import tempfile
from pathlib import Path

from tools import mpy

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import gc, os, time
import asyncio  # the app's own: not the supervisor's cost
class Clock:
    def ticks_ms(self): return time.ticks_ms()
    def ticks_diff(self, a, b): return time.ticks_diff(a, b)
class Wdt:
    def feed(self): pass
clock = Clock(); wdt = Wdt()
sup = log = None
a0 = a1 = a2 = b = peak = rheap = rus = bus = t0 = 0
gc.collect()
a0 = gc.mem_alloc()
import bg
from app import supervisor, watch
sup = supervisor.Supervisor(wdt, clock, ROOT)
for n in watch.NAMES:
    sup.watch(n)
bg.forget("bg.crashlog")  # as app.watch.boot_log does: bg.crashlog is not resident
gc.collect()
a1 = gc.mem_alloc()
from bg import crashlog
log = crashlog.CrashLog(ROOT)
gc.collect()
a2 = gc.mem_alloc()
for i in range(crashlog.MAX_ENTRIES):
    log.add(crashlog.CAUSE_TASK_DIED, "scan: RuntimeError: x | " + "y" * 90, 1763700000 + i)
gc.collect(); gc.disable()
b = gc.mem_alloc()
log.add(crashlog.CAUSE_WATCHDOG, "", 1763700100)
peak = gc.mem_alloc() - b
gc.enable(); gc.collect()
def rounds(n):
    for _ in range(n):
        sup.beat(0); sup.beat(1); sup.beat(2); sup.beat(3)
        sup.step()
rounds(10)
gc.collect(); gc.disable()
b = gc.mem_alloc(); rounds(1000); rheap = gc.mem_alloc() - b
gc.enable()
t0 = time.ticks_us(); rounds(2000); rus = time.ticks_diff(time.ticks_us(), t0) / 2000
t0 = time.ticks_us()
for _ in range(4000):
    sup.beat(1)
bus = time.ticks_diff(time.ticks_us(), t0) / 4000
print("RESULT", a1 - a0, a2 - a1, peak, rheap, rus, bus, sup.feeds)
"""


def main(argv):
    out = Path(argv[1] if len(argv) > 1 else ROOT / "build" / "bench")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as d:
        src = "ROOT = %r\n" % d + SCRIPT
        proc = mpy.run(["-c", src], heap="64k", firmware="board", timeout=120)
    line = [x for x in proc.stdout.splitlines() if x.startswith("RESULT")]
    if proc.returncode or not line:
        print(proc.stdout, proc.stderr)
        return 1
    f = line[0].split()[1:]
    res = {
        "interpreter": "board model (32-bit, firmware frozen, -X heapsize=64k)",
        "supervisor_heap_bytes": int(f[0]),
        "crashlog_heap_bytes": int(f[1]),
        "crashlog_add_peak_bytes": int(f[2]),
        "round_heap_bytes": int(f[3]),
        "round_us": round(float(f[4]), 2),
        "beat_us": round(float(f[5]), 3),
    }
    (out / "watchdog.json").write_text(json.dumps(res, indent=2) + "\n")
    print(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
