"""The clock-on-the-LEDs view tests (tests/ctl/test_controller_view_clock.py) on the real
MicroPython unix port, precompiled at 192k like tests/host/test_controller_mpy.py (the
controller does not fit the portable bridge's 64k): there they also measure with
``gc.mem_alloc`` that painting a clocked frame allocates nothing."""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "sim"))

import server  # noqa: E402

HEAP = "192k"


def test_view_clock_tests_pass_on_micropython(tmp_path):
    build = server.build_firmware()
    tests = ROOT / "tests"
    for src in (tests / "ctl" / "test_controller_view_clock.py", tests / "portable" / "ctl_helpers.py"):
        out = str(tmp_path / (src.stem + ".mpy"))
        cmd = [server.mpy_cross_binary(), "-march=x64", "-o", out, str(src)]
        subprocess.run(cmd, check=True, capture_output=True)
    env = dict(os.environ)
    env["MICROPYPATH"] = ":".join((build, str(tmp_path), ".frozen"))
    cmd = [
        server.micropython_binary(),
        "-X",
        "heapsize=" + HEAP,
        str(ROOT / "tests" / "mpy_runner.py"),
        "test_controller_view_clock",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(ROOT), timeout=300)
    out = proc.stdout + proc.stderr
    m = re.search(r"micropython: (\d+) passed, (\d+) failed, (\d+) skipped", out)
    assert m and proc.returncode == 0, out[-4000:]
    passed, failed, skipped = (int(x) for x in m.groups())
    assert failed == 0 and skipped == 0 and passed == 6, out[-4000:]
