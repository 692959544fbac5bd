"""Exercise `make bench-device` for real against the MicroPython unix port behind a pseudo-terminal.

As tools/deploy/deploy_test.py does for `make deploy`: socat gives the unix port a pty exactly as a
USB-serial ESP32 appears, the "board" holds the firmware (as source: the unix port cannot load
the xtensawin ``.mpy`` files ``make deploy`` writes) and ``hardware/board.json`` at its root, and
``tools/bench/device.py --port PTY`` copies the positions over mpremote, runs the benchmarks
there and writes the report. The check: the report has every figure, the visit walked the whole
set with gnubg's play counts, the hot paths allocated nothing, and the board's file system is
left as it was (the positions file aside).
"""

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tools import mpy
from tools.bench import device as bench_device
from tools.deploy import deploy_test  # noqa: F401 - the same socat set-up (installs socat when missing)

ROOT = Path(__file__).resolve().parents[2]


def main():
    if not shutil.which("socat"):
        print("bench-device-test: socat missing (apt-get install socat)", file=sys.stderr)
        return 1
    work = Path(tempfile.mkdtemp(prefix="benchdevtest-"))
    device = work / "device"
    shutil.copytree(ROOT / "firmware", device, ignore=shutil.ignore_patterns("__pycache__", "manifest.py"))
    shutil.copyfile(ROOT / "hardware" / "board.json", device / "board.json")
    before = sorted(p.name for p in device.iterdir())
    pty = work / "tty"
    exe = mpy.binary()
    sock = subprocess.Popen(
        ["socat", "PTY,link=%s,raw,echo=0" % pty, "EXEC:%s -i,pty,raw,echo=0,stderr,setsid" % exe],
        cwd=str(device),
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            if pty.exists():
                break
            time.sleep(0.05)
        rc = bench_device.main(["--port", str(pty), "--resume", "--out", str(work / "out")])
        if rc:
            return rc
        rep = json.loads((work / "out" / "report.json").read_text())
        res = rep["areas"]["device"]
        for name, _kind in bench_device.FIELDS:
            assert name in res, "no %s in the report" % name
        want = json.loads(bench_device.POSITIONS.read_text())["positions"]
        assert res["positions"] == len(want), res
        assert res["worst_state"] == 3, res  # COMPLETE: the worst position's play was recognised
        for k in ("visit_alloc", "scan_alloc", "led_frame_alloc"):
            assert res[k] == 0, "%s: %s bytes" % (k, res[k])
        after = sorted(p.name for p in device.iterdir())
        assert after == sorted(before + [bench_device.POS_FILE]), after
        print("bench-device-test: report over %s with %d figures" % (pty, len(res)))
        return 0
    finally:
        sock.terminate()
        sock.wait(timeout=5)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
