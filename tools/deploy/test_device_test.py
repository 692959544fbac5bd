"""Exercise `make test-device` for real against the MicroPython unix port behind a pseudo-terminal.

As tools/deploy/device_bench_test.py does for `make bench-device`: socat gives the unix port a pty as
a USB-serial ESP32 appears, the "board" holds the firmware (as source: the unix port cannot
load the xtensawin native code ``make deploy`` writes) and ``hardware/board.json``, and
``tools/deploy/test_device.py --port PTY`` stages and runs a few portable modules there, plus one
planted module whose test fails. The checks: each real module reports what the same module
reports under ``tests/mpy_runner.py`` on the same interpreter (passed / failed / skipped) with
its heap, the planted failure fails the run and is named, and the board's file system is left
as it was.
"""

import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tools import mpy
from tools.deploy import (
    deploy_test,  # noqa: F401 - the same socat set-up (installs socat when missing)
    test_device,
)

ROOT = Path(__file__).resolve().parents[2]

MODULES = ("test_dice_core", "test_leds_frame", "test_hwdesc_board")
PLANTED = """
def test_passes():
    assert 1 + 1 == 2


def test_fails_on_purpose():
    assert [1, 2] == [2, 1], "planted failure"
"""


def _direct(name, device):
    """The module under tests/mpy_runner.py on the same interpreter, firmware from ``device``."""
    p = mpy.run(
        [mpy.RUNNER, name],
        heap=None,
        firmware=None,
        path=[device, "tests/portable", mpy.HARNESS],
        cwd=device,
        timeout=600,
    )
    m = re.search(r"micropython: (\d+) passed, (\d+) failed, (\d+) skipped", p.stdout)
    assert m, p.stdout[-2000:] + p.stderr[-2000:]
    return tuple(int(x) for x in m.groups())


def main():
    if not shutil.which("socat"):
        print("test-device-test: socat missing (apt-get install socat)", file=sys.stderr)
        return 1
    work = Path(tempfile.mkdtemp(prefix="testdevtest-"))
    device = work / "device"
    shutil.copytree(
        ROOT / "firmware", device, ignore=shutil.ignore_patterns("__pycache__", "manifest.py", "main.py")
    )
    shutil.copyfile(ROOT / "hardware" / "board.json", device / "board.json")
    tests = work / "tests"
    shutil.copytree(ROOT / "tests" / "portable", tests, ignore=shutil.ignore_patterns("__pycache__"))
    (tests / "test_zz_planted.py").write_text(PLANTED)
    before = sorted(str(p.relative_to(device)) for p in device.rglob("*"))
    pty = work / "tty"
    sock = subprocess.Popen(
        [
            "socat",
            "PTY,link=%s,raw,echo=0" % pty,
            "EXEC:%s -i,pty,raw,echo=0,stderr,setsid" % mpy.binary(),
        ],
        cwd=str(device),
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            if pty.exists():
                break
            time.sleep(0.05)
        mods = ",".join(MODULES + ("test_zz_planted",))
        rc = test_device.main(
            [
                "--port",
                str(pty),
                "--resume",
                "--modules",
                mods,
                "--tests",
                str(tests),
                "--out",
                str(work / "out"),
            ]
        )
        assert rc == 1, "the planted failure must fail the run (exit %r)" % rc
        rep = json.loads((work / "out" / "report.json").read_text())
        assert rep["totals"]["modules_failed"] == ["test_zz_planted"], rep["totals"]
        planted = rep["modules"]["test_zz_planted"]
        assert (planted["passed"], planted["failed"]) == (1, 1) and "planted failure" in planted["output"]
        for name in MODULES:
            got = rep["modules"][name]
            want = _direct(name, device)
            assert (got["passed"], got["failed"], got["skipped"]) == want, (name, got, want)
            assert want[0] > 0 and 0 < got["heap_free_least"] <= got["heap_free_start"], (name, got)
        after = sorted(str(p.relative_to(device)) for p in device.rglob("*"))
        assert after == before, sorted(set(after) ^ set(before))
        print("test-device-test: %d modules over %s, the planted failure caught" % (len(MODULES) + 1, pty))
        return 0
    finally:
        sock.terminate()
        sock.wait(timeout=5)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
