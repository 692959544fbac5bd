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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def areas():
    """The areas ``make bench`` runs: every module of this package not starting with ``_``."""
    return sorted(p.stem for p in Path(__file__).parent.glob("*.py") if not p.stem.startswith("_"))


def main(argv):
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
    for area in areas():
        print("== bench %s" % area, flush=True)
        t0 = time.time()
        proc = subprocess.run([sys.executable, "-m", "tools.bench." + area, str(out)], cwd=ROOT)
        f = out / (area + ".json")
        if proc.returncode or not f.exists():
            report["failed"].append(area)
            continue
        data = json.loads(f.read_text())
        data["bench_wall_s"] = round(time.time() - t0, 1)
        report["areas"][area] = data
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    print(
        "report: %s (%d areas, failed: %s)"
        % (out / "report.json", len(report["areas"]), ", ".join(report["failed"]) or "none")
    )
    return 1 if report["failed"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
