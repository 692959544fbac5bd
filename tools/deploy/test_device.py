"""The portable test suite on a board, over its serial port (``make test-device PORT=...``).

    .venv/bin/python -m tools.deploy.test_device --port /dev/ttyUSB0
    .venv/bin/python -m tools.deploy.test_device --port PTY --resume --modules test_dice_core,test_leds_frame

The board has the firmware (``make deploy``). The test modules of ``tests/portable`` (with
their helpers and the harness of ``tools/harness``) are staged as ``make deploy`` stages the
firmware: compiled with ``mpy-cross -march=xtensawin`` and copied with mpremote, into
``tests/`` on the board. Then each module
runs on its own through the raw REPL (``mpremote exec``; without ``--resume`` every module
starts from a soft reset, as MicroPython's own test runner does on hardware targets): each
``test_*`` function is called, and the board prints its result and its heap (free at the
start, the least seen after any test, free at the end after a collection). The report goes to
``OUT/report.json`` (default ``build/test-device``), the staged files are removed from the
board, and the exit status is 1 when a module failed or did not report.
"""

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from tools import deploy, mpy

ROOT = Path(__file__).resolve().parents[2]

DEVICE_DIR = "tests"

RUN = r"""
import gc, sys
# the board's own path: the staged test modules and their helpers beside the firmware
if %(dir)r not in sys.path:
    sys.path.append(%(dir)r)
gc.collect()
free0 = gc.mem_free()
least = free0
mod = __import__(%(name)r)
names = sorted(n for n in dir(mod) if n.startswith('test_'))
passed = failed = skipped = 0
for n in names:
    fn = getattr(mod, n)
    if not callable(fn):
        continue
    gc.collect()
    try:
        fn()
    except Exception as e:
        if type(e).__name__ == 'SkipTest':
            skipped += 1
            print('SKIP', n, e)
            continue
        failed += 1
        print('FAIL', n)
        sys.print_exception(e)
        continue
    least = min(least, gc.mem_free())
    passed += 1
    print('PASS', n)
del mod
sys.modules.pop(%(name)r, None)
gc.collect()
print('HEAP', free0, least, gc.mem_free())
print('micropython: %%d passed, %%d failed, %%d skipped' %% (passed, failed, skipped))
"""

CLEAN = r"""
import os
def rm(d):
    for e in os.ilistdir(d):
        p = d + '/' + e[0]
        if e[1] == 0x4000:
            rm(p)
        else:
            os.remove(p)
    os.rmdir(d)
try:
    rm(%r)
except OSError:
    pass
"""


def stage(src, out, modules):
    """Compile the test modules ``modules``, every helper beside them in ``src`` (no other
    ``test_*``) and the harness into ``out``; returns [(local, device path)]."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    files = []
    for py in [*sorted(src.glob("*.py")), *sorted((ROOT / mpy.HARNESS).glob("*.py"))]:
        if py.stem.startswith("test_") and py.stem not in modules:
            continue
        dst = out / (py.stem + ".mpy")
        subprocess.run([deploy.tool("mpy-cross"), "-march=xtensawin", "-o", str(dst), str(py)], check=True)
        files.append((dst, "%s/%s" % (DEVICE_DIR, dst.name)))
    return files


def parse(text):
    """One module's output: its counts and heap figures, or None when it did not report."""
    m = re.search(r"micropython: (\d+) passed, (\d+) failed, (\d+) skipped", text)
    h = re.search(r"HEAP (-?\d+) (-?\d+) (-?\d+)", text)
    if not m or not h:
        return None
    p, f, s = (int(x) for x in m.groups())
    start, least, end = (int(x) for x in h.groups())
    return {
        "passed": p,
        "failed": f,
        "skipped": s,
        "heap_free_start": start,
        "heap_free_least": least,
        "heap_free_end": end,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", required=True, help="serial port of the board (or a pty)")
    ap.add_argument("--resume", action="store_true", help="no soft resets (the unix port behind a pty)")
    ap.add_argument("--modules", help="comma-separated module names (default: every tests/portable module)")
    ap.add_argument("--tests", default=str(ROOT / "tests" / "portable"), help="where the modules are")
    ap.add_argument("--out", default=str(ROOT / "build" / "test-device"))
    a = ap.parse_args(argv)
    src, out = Path(a.tests), Path(a.out)
    names = sorted(p.stem for p in src.glob("test_*.py"))
    if a.modules:
        want = a.modules.split(",")
        unknown = sorted(set(want) - set(names))
        if unknown:
            print("test-device: no such module in %s: %s" % (src, ", ".join(unknown)), file=sys.stderr)
            return 2
        names = want
    files = stage(src, out / "stage", set(names))
    base = [deploy.tool("mpremote"), "connect", a.port] + (["resume"] if a.resume else [])
    copy = subprocess.run(
        deploy.mpremote_args(a.port, files, True), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    if copy.returncode:
        print(copy.stdout[-2000:])
        print("test-device: mpremote could not stage the tests", file=sys.stderr)
        return 1
    print("staged %d files in %s/ on %s" % (len(files), DEVICE_DIR, a.port))
    report = {"port": a.port, "modules": {}}
    bad = []
    try:
        for name in names:
            t = time.monotonic()
            p = subprocess.run(
                base + ["exec", RUN % {"dir": DEVICE_DIR, "name": name}],
                capture_output=True,
                text=True,
                timeout=900,
            )
            res = parse(p.stdout + p.stderr)
            if res is None:
                res = {"error": (p.stdout + p.stderr)[-1500:]}
                bad.append(name)
            elif res["failed"] or not (res["passed"] + res["skipped"]):
                bad.append(name)
                res["output"] = p.stdout[-3000:]
            res["seconds"] = round(time.monotonic() - t, 2)
            report["modules"][name] = res
            print(
                "%-40s %s"
                % (
                    name,
                    "no report"
                    if "error" in res
                    else "%d passed, %d failed, %d skipped, heap free %d -> least %d"
                    % (
                        res["passed"],
                        res["failed"],
                        res["skipped"],
                        res["heap_free_start"],
                        res["heap_free_least"],
                    ),
                )
            )
    finally:
        subprocess.run(base + ["exec", CLEAN % DEVICE_DIR], capture_output=True, text=True, timeout=120)
    mods = report["modules"].values()
    report["totals"] = {k: sum(m.get(k, 0) for m in mods) for k in ("passed", "failed", "skipped")}
    report["totals"]["modules_failed"] = bad
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    print(
        "test-device: %d modules, %d passed, %d failed, %d skipped%s"
        % (
            len(names),
            report["totals"]["passed"],
            report["totals"]["failed"],
            report["totals"]["skipped"],
            "; failed modules: " + ", ".join(bad) if bad else "",
        )
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
