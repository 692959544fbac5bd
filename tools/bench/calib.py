"""How much slower is an ESP32 than this machine's MicroPython unix port? -> OUTDIR/calib.json

    .venv/bin/python -m tools.bench.calib OUTDIR

Runs MicroPython's own performance suite (``tests/perf_bench`` of the source the board model is
built from, tools/board_model.py) with ``N=100 M=100`` on the unix port, scores each test as
``run-perfbench.py`` does (``1e6 * norm / time_us``, higher is faster), and divides by the
scores published for an ESP32 with the same suite and parameters (PUBLISHED below: Damien
George's run in micropython/micropython#6565). ``esp32_slowdown`` is the geometric mean of the
per-test ratios: an ESP32 runs MicroPython code about that many times slower than this machine.
docs/performance.md multiplies the device figures by it: an ESTIMATE until ``make
bench-device`` runs on a board. Each test's score is the median of ``REPEATS`` runs (the machine
is shared).
"""

import json
import math
import statistics
import sys
from pathlib import Path

from tools import mpy
from tools.bench import SMOKE, size

ROOT = Path(__file__).resolve().parents[2]

SOURCE = "https://github.com/micropython/micropython/issues/6565"
# ESP32 (MicroPython v1.13-180-g5af3c046c, MicroPython pinned to core 0 as today; the issue does
# not state the clock: the esp32 port's default is 160 MHz), N=100 M=100, score per test
PUBLISHED = {
    "bm_chaos": 204.19,
    "bm_fannkuch": 80.12,
    "bm_fft": 2707.87,
    "bm_float": 3368.39,
    "bm_hexiom": 24.51,
    "bm_nqueens": 2792.79,
    "bm_pidigits": 475.01,
    "misc_aes": 413.36,
    "misc_mandel": 3174.19,
    "misc_pystone": 1166.32,
}
REPEATS = size(3, 1)


def score(bench_dir, name):
    src = (bench_dir / (name + ".py")).read_text() + (bench_dir / "benchrun.py").read_text()
    src += "\nbm_run(100, 100)\n"
    out = mpy.run_code(src, heap=None, firmware=None, timeout=300)  # the port's own heap, as published
    t, norm = out.stdout.split()[:2]
    return 1e6 * int(norm) / int(t)


def ratio(out):
    """The unix port -> ESP32 slowdown of this run: ``calib.json`` of ``make bench``'s same
    output folder ``out`` (its areas run in name order, ``calib`` first), measured now when it
    is not there. Every area that scales a unix-port figure to the ESP32 takes it from here, so
    a report's estimates share one calibration."""
    f = Path(out) / "calib.json"
    if not f.exists():
        main(["calib", str(out)])
    return json.loads(f.read_text())["esp32_slowdown"]


def main(argv):
    out = Path(argv[1] if len(argv) > 1 else ROOT / "build" / "bench")
    out.mkdir(parents=True, exist_ok=True)
    from tools import board_model

    board_model.configure(board_model.unpack(board_model.fetch()))  # the source tree, once
    bench_dir = board_model.SRC / "tests" / "perf_bench"
    res = {"source": SOURCE, "esp32_scores": PUBLISHED, "unix_scores": {}, "ratios": {}}
    # the smoke run: two of the tests (the ratio's computation all the same)
    for name, esp in list(PUBLISHED.items())[: 2 if SMOKE else None]:
        s = statistics.median(score(bench_dir, name) for _ in range(REPEATS))
        res["unix_scores"][name] = round(s, 2)
        res["ratios"][name] = round(s / esp, 1)
    r = list(res["ratios"].values())
    res["esp32_slowdown"] = round(math.exp(sum(math.log(x) for x in r) / len(r)), 1)
    res["esp32_slowdown_range"] = [min(r), max(r)]
    (out / "calib.json").write_text(json.dumps(res, indent=2) + "\n")
    print(
        "calib: an ESP32 is ~%.0fx slower than this unix port (per test %s; %s)"
        % (res["esp32_slowdown"], r, SOURCE)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
