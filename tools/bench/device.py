"""The device benchmarks: the same figures on the MicroPython unix port (``make bench``) and on a
real board over mpremote (``make bench-device PORT=/dev/ttyUSB0``).

    .venv/bin/python -m tools.bench.device OUTDIR               # unix port -> OUTDIR/device.json
    .venv/bin/python -m tools.bench.device --port /dev/ttyUSB0  # a board -> build/bench-device/report.json

One script (``DEVICE_SCRIPT``) runs on the interpreter, importing the firmware the board has
(``make deploy`` puts it there; on the unix port it is ``firmware/``), and prints one
``R name value`` line per figure:

* ``visit_us_per_position``: the allocation-free visit (``MoveGen.for_each_end``) of the 2,000
  positions of ``../shared/bench/positions_2000.json``, copied to the board as ``bench_pos.bin``
  (54 bytes each: position, dice) and read 100 at a time outside the timing;
* ``worst_recognize_us`` / ``worst_hints_us``: the worst position (1-1, 2,140 plays): the
  ``Recognizer.update`` of a finished play, and the engine's hints for a lifted checker;
* ``scan_us``: one quiet ``Sensing.feed``; ``led_frame_us``: one full ``Painter`` frame;
* ``dice_roll_us``: one ``Fairness.roll``; ``journal_append_us``: one TURN record appended
  (median; the board's own flash on a board, a directory beside the interpreter here);
* ``x25519_ms``: one X25519 exponentiation (pairing);
* ``gc_collect_us``: one ``gc.collect()`` with ``gc_held`` bytes held (at least 40 kB: what the
  script imported, topped up with small objects): what ``App.boot``'s threshold pays every 4 kB
  allocated;
* ``*_alloc``: heap bytes allocated per visit / scan / frame (gc off; target 0).

Each time is the median of several repeats (the host is shared; a board is not, but the
median costs nothing). The report has the shape of ``make bench``'s ``report.json``: the board's
figures are area ``device``. ``--resume`` skips mpremote's soft reset (the pty test,
tests/host/test_bench_device.py).
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tools import mpy
from tools.bench import size

ROOT = Path(__file__).resolve().parents[2]

POSITIONS = Path(
    os.environ.get("BENCH_POSITIONS", str(ROOT.parent / "shared" / "bench" / "positions_2000.json"))
)
POS_FILE = "bench_pos.bin"  # on the board, beside the firmware
JOURNAL_DIR = "bench_journal"

DEVICE_SCRIPT = r"""
import gc, time
gc.collect()
def med(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]
def R(name, v):
    print('R', name, v)
R('platform', __import__('sys').platform)
from bg import engine as movegen
from bg import board as B
from bg import recognize as RC
gen = movegen.MoveGen()
cnt = [0]
def visit(w, st, k):
    cnt[0] += 1
# 1: the visit of the benchmark set, 100 positions read at a time outside the timing
buf = bytearray(54 * 100)
pos = bytearray(52)
f = open(%(posfile)r, 'rb')
npos = 0
tv = 0
while True:
    n = f.readinto(buf)
    if not n:
        break
    k = n // 54
    t = time.ticks_us()
    for i in range(k):
        o = i * 54
        for j in range(52):
            pos[j] = buf[o + j]
        gen.for_each_end(pos, 0, buf[o + 52], buf[o + 53], visit)
    tv += time.ticks_diff(time.ticks_us(), t)
    npos += k
f.close()
R('positions', npos)
R('visit_us_per_position', tv / npos)
R('visit_plays', cnt[0])
def visits(n):
    for i in range(n):
        gen.for_each_end(pos, 0, buf[52], buf[53], visit)
for j in range(52):
    pos[j] = buf[j]
visits(2)
gc.collect(); gc.disable(); a = gc.mem_alloc()
visits(20)
R('visit_alloc', (gc.mem_alloc() - a) / 20)
gc.enable()
# 2: the worst position: recognition of a finished play and hints for a lifted checker
pts = {}
for p in (3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 17, 19, 20, 22, 23):
    pts[p] = 1
start = B.from_points(pts, {1: 2})
end = bytearray(start); gen.apply(end, 0, (23, 22, 22, 21, 4, 3, 3, 2))
cur = bytearray(start); gen.apply(cur, 0, (23, 22))
rec = RC.Recognizer(gen=gen)
obs = bytearray(28); RC.observe(end, obs, rec.caps)
ts = []; th = []
for i in range(5):
    rec.begin(start, 0, 1, 1)
    t = time.ticks_us(); st = rec.update(obs); ts.append(time.ticks_diff(time.ticks_us(), t))
    t = time.ticks_us(); gen.hints(start, 0, 1, 1, cur, 22); th.append(time.ticks_diff(time.ticks_us(), t))
R('worst_state', st)
R('worst_recognize_us', med(ts))
R('worst_hints_us', med(th))
del rec
gc.collect()
# 3: scan and LED frame
from bg import hwdesc, sensing, leds
b = hwdesc.load()
s = sensing.Sensing(b)
counts = bytearray(28)
for p, k in ((24, 2), (13, 5), (8, 3), (6, 5), (1, 2), (12, 5), (17, 3), (19, 5)):
    counts[p - 1] = k
raw = b.fill_chain(counts)
s.feed(raw)
def scans(n):
    for _ in range(n):
        s.feed(raw)
scans(10)
ts = []
for _ in range(5):
    t = time.ticks_us(); scans(200); ts.append(time.ticks_diff(time.ticks_us(), t) / 200)
R('scan_us', med(ts))
gc.collect(); gc.disable(); a = gc.mem_alloc(); scans(200)
R('scan_alloc', (gc.mem_alloc() - a) / 200); gc.enable()
pn = leds.Painter(b)
play = (24, 18, 13, 9)
def frame(t):
    pn.clear(); pn.tick(t)
    pn.destinations(0x00F0F0, 0, 13); pn.last_move(play, 1); pn.errors(1 << 3, 1 << 9)
    pn.turn(0); pn.cube(8, 1); pn.dice(6, 5, 0); pn.finish()
frame(0)
ts = []
for r in range(5):
    t = time.ticks_us()
    for i in range(20):
        frame(i * 33)
    ts.append(time.ticks_diff(time.ticks_us(), t) / 20)
R('led_frame_us', med(ts))
gc.collect(); gc.disable(); a = gc.mem_alloc()
for i in range(20):
    frame(i * 33)
R('led_frame_alloc', (gc.mem_alloc() - a) / 20); gc.enable()
del pn, s, b
gc.collect()
# 4: dice
from bg.dice.fairness import Fairness
fa = Fairness(bytes(8), bytes(range(32)))
fa.set_player_seed(bytes(16))
fa.fix()
ts = []
for r in range(5):
    t = time.ticks_us()
    for i in range(20):
        fa.roll()
    ts.append(time.ticks_diff(time.ticks_us(), t) / 20)
R('dice_roll_us', med(ts))
del fa
gc.collect()
# 5: journal append on this machine's file system
import os
from bg import journal, record
def rmtree(d):
    try:
        names = os.listdir(d)
    except OSError:
        return
    for n in names:
        p = d + '/' + n
        try:
            os.remove(p)
        except OSError:
            rmtree(p)
    os.rmdir(d)
rmtree(%(jdir)r)
os.mkdir(%(jdir)r)
j = journal.Journal(%(jdir)r)
j.open()
j.begin_match((b'benchmrk', 0, 0, 0, 0, 0, 0, 'a', 'b', bytes(32), b''), bytes(32))
ts = []
for i in range(60):
    fp = 24 - i %% 20
    t = time.ticks_us()
    j.append(record.TURN, (i & 1, 3, 1, (fp, fp - 3, 6, 5), 0))
    ts.append(time.ticks_diff(time.ticks_us(), t))
R('journal_append_us', med(ts))
R('journal_append_worst_us', max(ts))
del j
rmtree(%(jdir)r)
gc.collect()
# 6: pairing's exponentiation
from bg.link import crypto
k = bytes(range(32))
u = crypto.dh_keypair(lambda n: bytes(n))[1]
ts = []
for r in range(3):
    t = time.ticks_us(); crypto.x25519(k, u); ts.append(time.ticks_diff(time.ticks_us(), t))
R('x25519_ms', med(ts) / 1000)
del k, u
gc.collect()
# 7: one collection with at least 40 kB held (what the script imported, topped up with small
# objects): the firmware holds ~50 kB in play, and App.boot's gc.threshold(4096) runs one
# collection every 4 kB allocated, so this time is the collector's cost on the chip
keep = []
while gc.mem_alloc() < 40000:
    keep.append((bytearray(8), [0, 1]))
ts = []
for r in range(7):
    t = time.ticks_us(); gc.collect(); ts.append(time.ticks_diff(time.ticks_us(), t))
R('gc_held', gc.mem_alloc())
R('gc_collect_us', med(ts))
del keep
gc.collect()
R('heap_free', gc.mem_free())
R('done', 1)
"""

# the figures, in report order, with their type
FIELDS = (
    ("platform", str),
    ("positions", int),
    ("visit_us_per_position", float),
    ("visit_plays", int),
    ("visit_alloc", float),
    ("worst_state", int),
    ("worst_recognize_us", int),
    ("worst_hints_us", int),
    ("scan_us", float),
    ("scan_alloc", float),
    ("led_frame_us", float),
    ("led_frame_alloc", float),
    ("dice_roll_us", float),
    ("journal_append_us", int),
    ("journal_append_worst_us", int),
    ("x25519_ms", float),
    ("gc_held", int),
    ("gc_collect_us", int),
    ("heap_free", int),
)


def script():
    return DEVICE_SCRIPT % {"posfile": POS_FILE, "jdir": JOURNAL_DIR}


def positions_blob():
    """The benchmark set as the board reads it: 54 bytes per position (52 + dice)."""
    from bg import ids

    data = json.loads(POSITIONS.read_text())["positions"][: size(None, 20)]
    out = bytearray()
    for d in data:
        out += ids.decode_position_id(d["id"], side_on_roll=0)
        out += bytes(d["dice"][:2])
    return bytes(out)


def parse(text):
    """The figures from the script's output; ValueError with the output's tail when it did
    not finish (a traceback on the board, a lost line)."""
    got = dict(re.findall(r"^R (\w+) (\S+)\s*$", text, re.M))
    if got.get("done") != "1":
        raise ValueError("the device benchmark did not finish:\n" + text[-1500:])
    res = {}
    for name, kind in FIELDS:
        if name not in got:
            raise ValueError("the device benchmark printed no %s:\n%s" % (name, text[-800:]))
        try:
            v = kind(float(got[name])) if kind is int else kind(got[name])
        except ValueError:
            raise ValueError("the device benchmark printed a bad %s: %r" % (name, got[name])) from None
        res[name] = round(v, 2) if kind is float else v
    return res


def tool(name):
    here = Path(sys.executable).parent / name
    return str(here) if here.exists() else name


def run_local(work):
    """The script on the unix port (64-bit, firmware from source), in ``work``."""
    (Path(work) / POS_FILE).write_bytes(positions_blob())
    shutil.copyfile(ROOT / "hardware" / "board.json", Path(work) / "board.json")  # as make deploy puts it
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False, dir=work) as f:
        f.write(script())
        name = f.name
    # BENCH_FIRMWARE: another firmware tree (an older checkout) for before/after figures
    firmware = os.environ.get("BENCH_FIRMWARE", "firmware")
    try:
        p = mpy.run([name], heap="256k", firmware=None, path=[firmware], cwd=work, timeout=600)
    finally:
        os.unlink(name)
    return parse(p.stdout + p.stderr)


def run_board(port, resume, work):
    """The script on a board over mpremote: copy the positions, exec, parse."""
    blob = Path(work) / POS_FILE
    blob.write_bytes(positions_blob())
    base = [tool("mpremote"), "connect", port]
    if resume:
        base.append("resume")
    cp = subprocess.run(
        base + ["fs", "cp", str(blob), ":" + POS_FILE], capture_output=True, text=True, timeout=300
    )
    if cp.returncode:
        tail = (cp.stdout + cp.stderr)[-500:]
        raise ValueError("mpremote could not copy %s to the board: %s" % (POS_FILE, tail))
    p = subprocess.run(base + ["exec", script()], capture_output=True, text=True, timeout=900)
    return parse(p.stdout + p.stderr)


def report(res, where):
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {"board": where, "platform": res["platform"]},
        "commit": commit.stdout.strip(),
        "benchmark_set": "../shared/bench/positions_2000.json",
        "areas": {"device": res},
        "failed": [],
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir", nargs="?", help="make bench: write OUTDIR/device.json (unix port)")
    ap.add_argument("--port", help="a board's serial port (or a pty): run there over mpremote")
    ap.add_argument("--resume", action="store_true", help="no soft reset (tests)")
    ap.add_argument("--out", default=str(ROOT / "build" / "bench-device"))
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as work:
        try:
            if a.port:
                res = run_board(a.port, a.resume, work)
            else:
                res = run_local(work)
        except ValueError as e:
            print("bench-device: %s" % e, file=sys.stderr)
            return 1
    if a.port:
        out = Path(a.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "report.json").write_text(json.dumps(report(res, a.port), indent=2) + "\n")
        print("bench-device: %s" % (out / "report.json"))
    else:
        out = Path(a.outdir or ROOT / "build" / "bench")
        out.mkdir(parents=True, exist_ok=True)
        (out / "device.json").write_text(json.dumps(res, indent=2) + "\n")
    print(
        "device (%s): visit %.1f us/position, worst recognition %d us + hints %d us, scan %.1f us, "
        "LED frame %.0f us, dice %.0f us, journal append %d us, X25519 %.1f ms, "
        "one collection %d us (%d B held)"
        % (
            a.port or "unix port",
            res["visit_us_per_position"],
            res["worst_recognize_us"],
            res["worst_hints_us"],
            res["scan_us"],
            res["led_frame_us"],
            res["dice_roll_us"],
            res["journal_append_us"],
            res["x25519_ms"],
            res["gc_collect_us"],
            res["gc_held"],
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
