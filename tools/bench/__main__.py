"""`make bench`: run every area of ``tools/bench/`` (``python -m tools.bench.<area>``) and merge
their JSON into one report.

Each area writes ``OUTDIR/<area>.json``; this writes ``OUTDIR/report.json`` with the
machine, the date, the commit and every area's figures, so runs stay comparable. Speed and
memory are measured here, never asserted in timed tests.
"""

import json
import os
import platform
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# the areas that take longest in the smoke run (a whole remote match, simulators booting)
LONGEST = ("remote", "sim", "resting", "heapmargin")


def areas():
    """The areas ``make bench`` runs: every module of this package not starting with ``_``."""
    return sorted(p.stem for p in Path(__file__).parent.glob("*.py") if not p.stem.startswith("_"))


def main(argv):
    """``python -m tools.bench [--jobs N] [OUTDIR]``: ``--jobs`` runs N areas at a time (make
    test's smoke run; a measurement runs them one by one, the default)."""
    argv = list(argv)
    jobs = 1
    if "--jobs" in argv:
        i = argv.index("--jobs")
        jobs = int(argv[i + 1])
        del argv[i : i + 2]
    out = Path(argv[1] if len(argv) > 1 else ROOT / "build" / "bench")
    out.mkdir(parents=True, exist_ok=True)
    report = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
        },
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip(),
        "benchmark_set": "../shared/bench/positions_2000.json",
        "areas": {},
        "failed": [],
    }

    def run(area):
        print("== bench %s" % area, flush=True)
        t0 = time.time()
        proc = subprocess.run([sys.executable, "-m", "tools.bench." + area, str(out)], cwd=ROOT)
        f = out / (area + ".json")
        if proc.returncode or not f.exists():
            return area, None
        data = json.loads(f.read_text())
        data["bench_wall_s"] = round(time.time() - t0, 1)
        return area, data

    # calib first: the areas that scale a figure to the ESP32 read its calib.json (calib.ratio)
    names = areas()
    first = [a for a in names if a == "calib"]
    rest = [a for a in names if a != "calib"]
    if jobs > 1:
        # (the smoke run only: areas side by side disturb each other's figures) the longest
        # first, so that the workers finish together
        rest.sort(key=lambda a: LONGEST.index(a) if a in LONGEST else len(LONGEST))
    done = [run(a) for a in first]
    with ThreadPoolExecutor(jobs) as ex:
        done += list(ex.map(run, rest))
    for area, data in sorted(done):
        if data is None:
            report["failed"].append(area)
        else:
            report["areas"][area] = data
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    print(
        "report: %s (%d areas, failed: %s)"
        % (out / "report.json", len(report["areas"]), ", ".join(report["failed"]) or "none")
    )
    return 1 if report["failed"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
