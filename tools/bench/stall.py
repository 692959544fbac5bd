"""Does any computation hold the asyncio loop? -> OUTDIR/stall.json

    .venv/bin/python -m tools.bench.stall OUTDIR

1. The longest stall on the board model (tools/board_model.py: 32-bit, firmware frozen,
   ``-X heapsize=64k``): a 100 Hz ticker task (the scan task's period) records how late each
   tick runs while a second task works as app.engine_task does (``Recognizer.begin``/
   ``feed`` + ``work(CHUNK_PLAYS)``, ``CHUNK_DOUBLE`` on a double, until a slice's time is
   spent, then a yield; the slice is
   the chip's ``SLICE_US`` divided by the calibration ratio): it recognises the worst position
   (1-1, 2,140 plays: a finished play; a lifted checker's hints come out of the same search)
   and the first 1,000
   positions of ../shared/bench/positions_2000.json, each with one of its legal plays, then
   finds each turn's best play by pubeval in the same slices (the computer's move, the coach,
   learning mode: ``app.opponent``'s ``think``). ``longest_stall_ms`` is the longest gap
   between two ticks minus the period (budget: 20 ms); ``longest_hold_us`` the longest piece
   of work between two yields, ``hold_p99_us`` the 99th percentile, and their ESP32
   estimates with the calibration of the same ``make bench`` run (area ``calib``,
   docs/performance.md; ``esp32_ratio`` in the report). The same run with every search
   whole (``work(0)``/``run(0)``: how the board did it before the engine task) gives
   ``unsliced_*`` for comparison.
2. The sensor-change to LED-frame latency on the board model: the simulator (tools/sim) with
   the board model as firmware, a checker lifted and put back 20 times each way, measured on the
   host side (median, p95, max), as ``bench_sim.latency`` does on the 64-bit port.

Figures are the median of ``REPEATS`` runs of (1) (the machine is shared).
"""

import json
import statistics
import sys
import tempfile
from pathlib import Path

from app.engine_task import CHUNK_DOUBLE, CHUNK_PLAYS, SLICE_US  # the engine task's own (one copy)

from tools import mpy
from tools.bench import calib, size

ROOT = Path(__file__).resolve().parents[2]
REPEATS = size(5, 1)
NPOS = size(1000, 10)
# app.engine_task's searches: chunks of CHUNK_PLAYS plays, a yield once SLICE_US have passed
# on the chip; here the slice is the chip's divided by the unix port -> ESP32 calibration of the
# same run (``make bench`` area ``calib``, docs/performance.md), so that the holds measured here
# times the calibration are the chip's (an estimate, as the calibration is)

SCRIPT = r"""
import asyncio, time, gc, sys
from bg import board as B, recognize as RC
from bg.engine.pubeval import PubEval
rec = RC.Recognizer()
gen = rec.gen
pe = PubEval(gen)  # the computer's choice shares the recogniser's generator, as on the board
data = open(sys.argv[1], 'rb')
buf = bytearray(54)
end = bytearray(52)
obs = bytearray(28)
state = [0, 0, 0, 0]  # worst gap (ms), ticks, done, longest hold between yields (us)
pick = [0, 0]
def keep(w, st, n):
    pick[1] += 1
    if pick[1] == pick[0]:
        for i in range(52):
            end[i] = w[i]
        gen.stop = True
async def ticker():
    last = time.ticks_ms()
    while not state[2]:
        await asyncio.sleep_ms(10)
        now = time.ticks_ms()
        gap = time.ticks_diff(now, last)
        if gap > state[0]:
            state[0] = gap
        state[1] += 1
        last = now
CHUNK = int(sys.argv[3])  # plays per work() call (0: the whole search at once)
SLICE_US = int(sys.argv[4])  # yield once a slice has run this long (as app.engine_task does)
CHUNK_DOUBLE = int(sys.argv[5])  # the recogniser's chunk on a double (as app.engine_task's)
hold = [0]
from array import array
hist = array('I', bytes(4 * 201))  # holds in 10 us buckets (the last: 2 ms and more)
def mark():
    # the worker is about to give the loop back: how long did it hold it?
    dt = time.ticks_diff(time.ticks_us(), hold[0])
    if dt > state[3]:
        state[3] = dt
    b = dt // 10
    hist[b if b < 200 else 200] += 1
async def slices(step, chunk):
    # one search in slices, as app.engine_task runs it: chunks of CHUNK plays until
    # SLICE_US have passed since the loop was last given back (the set-up counts), then a yield
    while not step(chunk):
        if time.ticks_diff(time.ticks_us(), hold[0]) >= SLICE_US:
            mark()
            await asyncio.sleep_ms(0)
            hold[0] = time.ticks_us()
    mark()
    await asyncio.sleep_ms(0)
    hold[0] = time.ticks_us()
async def turn(start, d1, d2, k):
    # (no coroutine made per yield: the app's task allocates nothing there either)
    for i in range(52):
        end[i] = start[i]
    pick[0] = k; pick[1] = 0
    gen.for_each_end(start, 0, d1, d2, keep)  # (the bench's own pick of a play: stops early)
    mark()
    await asyncio.sleep_ms(0)
    hold[0] = time.ticks_us()
    rec.begin(start, 0, d1, d2, True)
    n = CHUNK_DOUBLE if d1 == d2 and CHUNK else CHUNK
    await slices(rec.work, n)
    RC.observe(end, obs, rec.caps)
    if rec.feed(obs):
        await slices(rec.work, n)
    # (the LEDs' hints come out of the recogniser's own search: no second search for them)
    # the turn's best play (the computer's move, the coach, learning mode: app.opponent think)
    pe.start(start, 0, d1, d2)
    await slices(pe.run, CHUNK)
async def worker(n):
    pts = {}
    for p in (3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 17, 19, 20, 22, 23):
        pts[p] = 1
    worst = B.from_points(pts, {1: 2})
    await asyncio.sleep_ms(30)
    hold[0] = time.ticks_us()
    await turn(worst, 1, 1, 1)
    pos = bytearray(52)
    for i in range(n):
        data.readinto(buf)
        for j in range(52):
            pos[j] = buf[j]
        await turn(pos, buf[52], buf[53], 1 + (i * 7) % 5)
    state[2] = 1
async def main(n):
    asyncio.create_task(ticker())
    await worker(n)
    await asyncio.sleep_ms(20)
asyncio.run(main(int(sys.argv[2])))
total = sum(hist)
acc = 0
p99 = 0
for i in range(201):
    acc += hist[i]
    if acc * 100 >= total * 99:
        p99 = 10 * (i + 1)
        break
print('RESULT', state[0] - 10, state[3], state[1], p99)
"""


def stall_once(blob, chunk, slice_us):
    p = mpy.run_code(
        SCRIPT, blob, NPOS, chunk, slice_us, CHUNK_DOUBLE, heap="64k", firmware="board", timeout=600
    )
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT")]
    if p.returncode or not line:
        raise RuntimeError("stall bench failed:\n" + (p.stdout + p.stderr)[-1500:])
    stall, turn, ticks, p99 = (int(x) for x in line[0].split()[1:])
    return stall, turn, ticks, p99


def latency_board_model(n=20):
    from tools.bench import sim as bench_sim
    from tools.sim import server

    orig = server.Sim

    def board_sim(*a, **k):
        k["rom"] = "board"
        return orig(*a, **k)

    server.Sim = board_sim  # bench_sim.latency's simulator, on the board model
    try:
        out = bench_sim.latency(n)
    finally:
        server.Sim = orig
    return out


def main(argv):
    out = Path(argv[1] if len(argv) > 1 else ROOT / "build" / "bench")
    out.mkdir(parents=True, exist_ok=True)
    from tools.bench import device as bench_device

    res = {"interpreter": "board model (32-bit, firmware frozen, -X heapsize=64k)", "positions": NPOS}
    ratio = calib.ratio(out)
    res["esp32_ratio"] = ratio
    with tempfile.TemporaryDirectory() as tmp:
        blob = Path(tmp) / "pos.bin"
        blob.write_bytes(bench_device.positions_blob())
        runs = [stall_once(blob, CHUNK_PLAYS, int(SLICE_US / ratio)) for _ in range(REPEATS)]
        whole = [stall_once(blob, 0, 0) for _ in range(REPEATS)]
    res["longest_stall_ms_runs"] = [r[0] for r in runs]
    res["longest_stall_ms"] = statistics.median(r[0] for r in runs)  # budget 20
    res["longest_stall_ms_min"] = min(r[0] for r in runs)  # the least disturbed by other processes
    res["chunk_plays"] = CHUNK_PLAYS
    res["chunk_plays_double"] = CHUNK_DOUBLE  # the recogniser's on a double
    res["slice_us_here"] = int(SLICE_US / ratio)
    res["longest_hold_us"] = statistics.median(r[1] for r in runs)  # the longest piece between yields
    # 99 % of the pieces are at most this long (the longest of thousands of pieces also catches
    # the shared machine's scheduler: a process switched out mid-piece)
    res["hold_p99_us"] = statistics.median(r[3] for r in runs)
    # the same turns with each recognition run to its end at once (work(0)): as before the
    # recognition task, for comparison
    res["unsliced_longest_stall_ms"] = statistics.median(r[0] for r in whole)
    res["unsliced_longest_hold_us"] = statistics.median(r[1] for r in whole)
    # on the ESP32: the hold x the calibration (an estimate, as the calibration is)
    res["esp32_estimate_longest_hold_ms"] = round(res["longest_hold_us"] * ratio / 1000, 1)
    res["esp32_estimate_hold_p99_ms"] = round(res["hold_p99_us"] * ratio / 1000, 1)
    res["esp32_estimate_unsliced_hold_ms"] = round(res["unsliced_longest_hold_us"] * ratio / 1000, 1)
    lat = sorted(latency_board_model(size(20, 2)))
    res["change_to_led_ms_median"] = round(statistics.median(lat), 1)
    res["change_to_led_ms_p95"] = round(lat[int(0.95 * (len(lat) - 1))], 1)
    res["change_to_led_ms_max"] = round(lat[-1], 1)
    res["change_to_led_samples"] = len(lat)
    (out / "stall.json").write_text(json.dumps(res, indent=2) + "\n")
    print(
        "stall (board model): longest stall %s ms (runs %s), longest hold %s us (p99 %s us), on the ESP32 "
        "~%s ms (searches in slices; unsliced: stall %s ms, hold %s us, on the ESP32 ~%s ms); change to "
        "LED frame median %.1f ms, p95 %.1f, max %.1f"
        % (
            res["longest_stall_ms"],
            res["longest_stall_ms_runs"],
            res["longest_hold_us"],
            res["hold_p99_us"],
            res["esp32_estimate_longest_hold_ms"],
            res["unsliced_longest_stall_ms"],
            res["unsliced_longest_hold_us"],
            res["esp32_estimate_unsliced_hold_ms"],
            res["change_to_led_ms_median"],
            res["change_to_led_ms_p95"],
            res["change_to_led_ms_max"],
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
