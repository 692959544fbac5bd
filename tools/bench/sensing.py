"""Benchmark the sensing layer and the LED compositor on the real MicroPython unix port.

Usage::

    .venv/bin/python -m tools.bench.sensing OUTDIR     # writes OUTDIR/sensing.json

Measures, under ``micropython -X heapsize=256k`` with the firmware modules:

- ``heap_bytes_per_scan``: ``gc.mem_alloc`` growth per ``Sensing.feed`` (gc disabled), over
  quiet scans, bouncing scans and accepted changes (target 0);
- ``scan_quiet_us`` / ``scan_change_us``: time of one ``feed`` with nothing changing, and of
  one that accepts a change (recount of all 28 rows);
- ``led_compose_us``: one full frame (clear, tick, destinations, last move, errors, turn, cube,
  dice, budget) and ``led_heap_bytes_per_frame``;
- ``scans_per_s_budget``: how many scans per second fit in 10 % of a core at that speed.

The unix port on a PC is ~10-30x faster than an ESP32 at 240 MHz; the ESP32 figure to keep in
mind is the ratio, e.g. 30 us here ~ 0.3-0.9 ms there, which still allows >= 100 Hz scanning
at a few percent CPU. (The simulator engineer adds the stable-change-to-LED latency.)
"""

import json
import sys
from pathlib import Path

from tools import mpy

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import gc, time
from bg import hwdesc, sensing, leds
b = hwdesc.load("hardware/board.json")
s = sensing.Sensing(b)
counts = bytearray(28)
for p, k in ((24, 2), (13, 5), (8, 3), (6, 5), (1, 2), (12, 5), (17, 3), (19, 5)):
    counts[p - 1] = k
raw = b.fill_chain(counts)
moved = bytearray(raw)
b.set_slot(moved, 2, 0, True)
s.feed(raw)
N = 2000
a = used = led_used = 0  # globals created up front: creating one grows the module dict (heap)
def quiet(n):
    for _ in range(n):
        s.feed(raw)
def changes(n):
    for i in range(n):
        s.feed(moved if (i // 3) & 1 else raw)
quiet(10); changes(12)
gc.collect(); gc.disable()
a = gc.mem_alloc(); quiet(N); changes(N); used = gc.mem_alloc() - a
gc.enable()
t0 = time.ticks_us(); quiet(N); t_quiet = time.ticks_diff(time.ticks_us(), t0) / N
# one accepted change every 3 scans with debounce 3: time the accepting scans alone
nchg = 0; t_chg = 0
for i in range(600):
    src = moved if (i // 3) & 1 else raw
    t0 = time.ticks_us()
    if s.feed(src):
        t_chg += time.ticks_diff(time.ticks_us(), t0); nchg += 1
p = leds.Painter(b)
play = (24, 18, 13, 9)
def frame(t):
    p.clear(); p.tick(t)
    p.destinations(0x00F0F0, 0, 13); p.last_move(play, 1); p.errors(1 << 3, 1 << 9)
    p.turn(0); p.cube(8, 1); p.dice(6, 5, 0); p.finish()
frame(0)
gc.collect(); gc.disable()
a = gc.mem_alloc()
for t in range(200):
    frame(t * 33)
led_used = gc.mem_alloc() - a
gc.enable()
t0 = time.ticks_us()
for t in range(200):
    frame(t * 33)
t_led = time.ticks_diff(time.ticks_us(), t0) / 200
st = sensing.SelfTest()
t0 = time.ticks_us(); st.run(sensing.Sensing(b), raw); t_self = time.ticks_diff(time.ticks_us(), t0)
print("RESULT", used / (2 * N), t_quiet, t_chg / max(1, nchg), led_used / 200, t_led, t_self, nchg)
"""


def main(argv):
    if len(argv) != 1:
        print("usage: python -m tools.bench.sensing OUTDIR")
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    proc = mpy.run_code(SCRIPT, heap="256k", timeout=170)
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT")]
    if proc.returncode != 0 or not line:
        print(proc.stdout + proc.stderr)
        return 1
    used, t_quiet, t_chg, led_used, t_led, t_self, nchg = (float(x) for x in line[0].split()[1:])
    res = {
        "interpreter": "micropython unix port",
        "heap_bytes_per_scan": used,
        "scan_quiet_us": round(t_quiet, 2),
        "scan_change_us": round(t_chg, 2),
        "changes_timed": int(nchg),
        "led_compose_us": round(t_led, 1),
        "led_heap_bytes_per_frame": led_used,
        "selftest_us": int(t_self),
        "scans_per_s_in_10pct_cpu": int(100000 / t_quiet) if t_quiet else None,
        "scan_hz_configured": json.loads((ROOT / "hardware" / "board.json").read_text())["firmware"][
            "scan_hz"
        ],
    }
    (out / "sensing.json").write_text(json.dumps(res, indent=2) + "\n")
    print(
        "sensing: %.1f heap bytes/scan, scan %.1f us quiet / %.1f us on change, LED frame %.0f us "
        "(%.1f heap bytes/frame), self-test %d us" % (used, t_quiet, t_chg, t_led, led_used, t_self)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
