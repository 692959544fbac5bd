"""Bridge: every portable and MicroPython-only test module, run on the real unix port.

Each module becomes one pytest test, so a failure under MicroPython fails ``make test`` and
shows in pytest's summary with the interpreter's own output. The heap is capped at
``MPY_HEAP`` (64k by default) to model the ESP32.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEAP = os.environ.get("MPY_HEAP", "64k")
MODULES = sorted(
    [p for p in (ROOT / "tests" / "portable").glob("test_*.py")]
    + [p for p in (ROOT / "tests" / "mpy").glob("test_*.py")]
)
RESULTS = {}


def micropython_binary():
    here = Path(sys.executable).parent / "micropython"
    return str(here) if here.exists() else "micropython"


def run_module(path, heap=HEAP, timeout=900):
    env = dict(os.environ)
    env["MICROPYPATH"] = (
        ":".join(str(ROOT / d) for d in ("firmware", "tests/fakes", "tests/portable", "tests/mpy", "tests"))
        + ":.frozen"
    )
    return subprocess.run(
        [micropython_binary(), "-X", "heapsize=" + heap, str(ROOT / "tests" / "mpy_runner.py"), path.stem],
        cwd=str(ROOT),
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.parametrize("path", MODULES, ids=[p.parent.name + "/" + p.name for p in MODULES])
def test_module_on_micropython(path):
    proc = run_module(path)
    out = proc.stdout + proc.stderr
    m = re.search(r"micropython: (\d+) passed, (\d+) failed, (\d+) skipped", out)
    if m:
        RESULTS[path.name] = tuple(int(x) for x in m.groups())
    assert proc.returncode == 0 and m, "MicroPython run failed:\n" + out[-6000:]
