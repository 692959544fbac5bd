"""The one way the tools and the tests start MicroPython.

Which interpreter, how the firmware gets in and what the heap means are decided here once:

* ``firmware="source"``: the unix port pip installed, ``firmware/`` on MICROPYPATH (compiled in
  the heap); ``heap`` is the whole ``-X heapsize``;
* ``firmware="rom"``: the unix port with the firmware's ROMFS image mounted at /rom
  (``tools/romfs.py``, as in the ESP32's flash); ``heap`` is the working heap beside the image;
* ``firmware="board"``: the board model (``tools/board_model.py``: 32-bit, firmware frozen);
  ``heap`` is the whole heap, as on the ESP32;
* ``firmware=None``: the unix port with only ``path`` (a precompiled copy, say).

``run`` returns the finished process (text, output captured); ``command`` and ``environ`` give
the argv and environment for a process that runs on (the simulator's firmware).
"""

import functools
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAP = "64k"  # the ESP32's heap for a program (docs/memory.md)
# the firmware's harness (fake clock and randomness, a scripted board and host, robot players,
# littlefs on a RAM block device): bare-name modules for both interpreters, which the tests and
# the benchmarks share
HARNESS = "tools/harness"
# where the portable and MicroPython-only test modules import from (tests/mpy_runner.py)
TEST_PATH = ("tests/fakes", HARNESS, "tests/portable", "tests/mpy", "tests")
RUNNER = ROOT / "tests" / "mpy_runner.py"


def binary():
    """The unix port pip installed beside this Python, else the repository's venv's, else PATH's."""
    here = Path(sys.executable).parent / "micropython"
    if here.exists():
        return str(here)
    venv = ROOT / ".venv" / "bin" / "micropython"
    return str(venv) if venv.exists() else "micropython"


@functools.cache
def board_model():
    """The board model's binary, built or brought up to date once per process (its frozen
    firmware must be today's sources)."""
    from tools import board_model as bm

    return str(bm.build())


@functools.cache
def rom_image():
    """The firmware's ROMFS image for this host (built once per process, cached in build/)."""
    from tools import romfs

    return romfs.build()


def command(args, heap=HEAP, firmware="source", image=None):
    """The argv running ``args`` (a script or module name and its arguments; ``-c CODE`` except
    with ``firmware="rom"``) on MicroPython; ``image``: another ROMFS image than the firmware's;
    ``heap=None``: the interpreter's own default heap."""
    args = [str(a) for a in args]
    if firmware == "rom":
        from tools import romfs

        return romfs.command(binary(), heap, args[0], *args[1:], image=image or rom_image())
    exe = board_model() if firmware == "board" else binary()
    return [exe] + (["-X", "heapsize=" + heap] if heap else []) + args


def environ(path=(), firmware="source", env=None):
    """The environment: ``env`` (default: this process's) with MICROPYPATH set to the firmware's
    place, then ``path`` (folders relative to the repository or absolute), then the frozen
    modules. On the board model the frozen firmware comes first, as on the ESP32."""
    dirs = [d if str(d) == ".frozen" else str(ROOT / d) for d in path]
    if firmware == "source":
        dirs.insert(0, str(ROOT / "firmware"))
    if firmware == "board":
        dirs.insert(0, ".frozen")
    elif ".frozen" not in dirs:
        dirs.append(".frozen")
    out = dict(os.environ if env is None else env)
    out["MICROPYPATH"] = ":".join(dirs)
    return out


def run(
    args, *, heap=HEAP, firmware="source", path=(), image=None, env=None, timeout=300, check=False, cwd=ROOT
):
    """Run MicroPython to the end in ``cwd`` (the repository's root) -> ``subprocess.CompletedProcess``.
    ``check``: raise RuntimeError with the interpreter's output when it exits non-zero."""
    proc = subprocess.run(
        command(args, heap, firmware, image),
        cwd=str(cwd),
        env=environ(path, firmware, env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if check and proc.returncode:
        raise RuntimeError(
            "MicroPython exited %d:\n%s%s" % (proc.returncode, proc.stdout[-3000:], proc.stderr[-3000:])
        )
    return proc


def run_code(code, *args, **kw):
    """``run`` of a program given as source text (written to a temporary script, so the ROM
    loader can run it too)."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(code)
    try:
        return run([f.name, *args], **kw)
    finally:
        os.unlink(f.name)


def run_tests(module, heap=HEAP, firmware="rom", path=(), timeout=900):
    """One portable test module through tests/mpy_runner.py (its summary line is the last)."""
    target = "mpy_runner" if firmware == "rom" else RUNNER
    return run([target, module], heap=heap, firmware=firmware, path=[*path, *TEST_PATH], timeout=timeout)


# the helpers a controller module (tests/ctl) imports, precompiled beside it
CTL_HELPERS = (
    HARNESS + "/ctl_helpers",
    HARNESS + "/link_helpers",
    HARNESS + "/link_board",
    HARNESS + "/link_fakes",
    "tests/portable/app_power_helpers",
)


def run_ctl_bytecode(module, heap, workdir, timeout=300):
    """One controller test module (tests/ctl) on the 64-bit port as the controller's bridge runs
    it: the firmware and the module with its helpers precompiled by mpy-cross into ``workdir``
    and loaded as ``.mpy`` files, their bytecode in the heap."""
    from tools.sim import server  # the firmware's build lives with the simulator that runs it

    build = server.build_firmware()
    srcs = [ROOT / "tests" / "ctl" / (module + ".py"), *(ROOT / (m + ".py") for m in CTL_HELPERS)]
    for src in srcs:
        out = str(Path(workdir) / (src.stem + ".mpy"))
        cmd = [server.mpy_cross_binary(), "-march=x64", "-o", out, str(src)]
        subprocess.run(cmd, check=True, capture_output=True)
    return run([RUNNER, module], heap=heap, firmware=None, path=[build, workdir], timeout=timeout)
