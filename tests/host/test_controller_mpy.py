"""The controller's tests in tests/ctl (the whole-match tests and the clock-on-the-LEDs view
tests) on the real MicroPython unix port.

They cannot run in the portable bridge's 64k heap: the unix port keeps every module's
bytecode in the heap (on the 64-bit host, twice the ESP32's object sizes), and the
controller, the engine and the dice together need about 110 kB of it before a game starts
(tools/bench_sim.py measures it; the ESP32 runs them frozen in flash). So this test
precompiles the firmware and the test module with mpy-cross and runs them at 192k.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "sim"))

import server  # noqa: E402

HEAP = "192k"

# (tests/ctl module, at least this many tests must pass on MicroPython)
MODULES = [
    ("test_controller_match", 20),
    # the clock-on-the-LEDs view: there it also measures with gc.mem_alloc that painting a
    # clocked frame allocates nothing (CPython skips those two checks)
    ("test_controller_view_clock", 6),
]


@pytest.mark.parametrize("name,at_least", MODULES, ids=[m[0] for m in MODULES])
def test_ctl_module_passes_on_micropython(tmp_path, name, at_least):
    build = server.build_firmware()
    tests = ROOT / "tests"
    for src in (tests / "ctl" / (name + ".py"), tests / "portable" / "ctl_helpers.py"):
        out = str(tmp_path / (src.stem + ".mpy"))
        cmd = [server.mpy_cross_binary(), "-march=x64", "-o", out, str(src)]
        subprocess.run(cmd, check=True, capture_output=True)
    env = dict(os.environ)
    env["MICROPYPATH"] = ":".join((build, str(tmp_path), ".frozen"))
    cmd = [server.micropython_binary(), "-X", "heapsize=" + HEAP, str(tests / "mpy_runner.py"), name]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(ROOT), timeout=300)
    out = proc.stdout + proc.stderr
    m = re.search(r"micropython: (\d+) passed, (\d+) failed, (\d+) skipped", out)
    assert m and proc.returncode == 0, out[-4000:]
    passed, failed, skipped = (int(x) for x in m.groups())
    assert failed == 0 and skipped == 0 and passed >= at_least, out[-4000:]
