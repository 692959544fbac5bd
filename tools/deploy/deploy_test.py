"""Exercise `make deploy` for real against the MicroPython unix port behind a pseudo-terminal.

socat gives the unix port a pty exactly as a USB-serial ESP32 would appear; ``tools/deploy``
then compiles and copies the firmware with mpremote over that pty. The check: every file
arrived byte for byte, and the board (the unix port, in the copied tree) imports every
bytecode module from the xtensawin ``.mpy`` files (native-code modules must refuse with
"incompatible .mpy arch", which proves they were compiled for the ESP32).
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tools import deploy, mpy

ROOT = Path(__file__).resolve().parents[2]


def main():
    if not shutil.which("socat"):
        if os.geteuid() == 0 and shutil.which("apt-get"):
            subprocess.run(
                ["apt-get", "install", "-y", "-qq", "socat"],
                check=False,
                env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"),
            )
        if not shutil.which("socat"):
            print("deploy-test: socat missing (apt-get install socat)", file=sys.stderr)
            return 1
    work = Path(tempfile.mkdtemp(prefix="deploytest-"))
    device = work / "device"
    device.mkdir()
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
        rc = deploy.main(["--port", str(pty), "--resume", "--out", str(work / "build")])
        if rc:
            return rc
        built = work / "build"
        n = 0
        for f in built.rglob("*"):
            if f.is_file():
                rel = f.relative_to(built)
                got = device / rel
                assert got.exists(), "not on the device: %s" % rel
                assert got.read_bytes() == f.read_bytes(), "corrupted on the device: %s" % rel
                n += 1
        mods = [
            p.relative_to(built).with_suffix("").as_posix().replace("/", ".")
            for p in built.rglob("*.mpy")
            if p.name != "__init__.mpy"
        ]
        probe = (
            "ok=0\nnat=0\ndev=0\nbad=[]\n"
            "for m in %r:\n"
            " try:\n  __import__(m); ok+=1\n"
            " except ValueError as e:\n  nat+=1 if 'arch' in str(e) else 0\n"
            "  if 'arch' not in str(e): bad.append((m,str(e)))\n"
            # Only the ESP32's own modules may be missing on the unix port.
            " except ImportError as e:\n"
            "  if any(k in str(e) for k in ('machine','neopixel','bluetooth','esp32','network')): dev+=1\n"
            "  else: bad.append((m,str(e)))\n"
            "print('IMPORTED',ok,'NATIVE',nat,'DEVICE_ONLY',dev,'BAD',bad)\n" % (mods,)
        )
        out = subprocess.run(
            [deploy.tool("mpremote"), "connect", str(pty), "resume", "exec", probe],
            capture_output=True,
            text=True,
            timeout=60,
        )
        print(out.stdout.strip())
        assert "BAD []" in out.stdout, out.stdout + out.stderr
        print("deploy-test: %d files deployed over %s and verified" % (n, pty))
        return 0
    finally:
        sock.terminate()
        sock.wait(timeout=5)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
