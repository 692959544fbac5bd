"""Heap margin of every MicroPython test module -> OUTDIR/heapmargin.json.

    .venv/bin/python -m tools.bench.heapmargin OUTDIR

For each module the bridge runs (tests/test_micropython.py: tests/portable and tests/mpy) the
smallest heap, in 2k steps, at which it still passes with nothing skipped:

- on the pip-installed 64-bit port with the firmware in a ROM image: the working heap, against
  the module's ``# mpy-heap`` line (64k when it has none);
- on the board model (tools/board_model.py: 32-bit, firmware frozen, as on the ESP32): the
  whole ``-X heapsize``, against the board's 64k.

The controller's modules (tests/ctl) are measured as tests/host/test_controller_mpy.py runs
them: on the board model, and on the 64-bit port with their bytecode in the heap (``ctl64``).

``margin_k`` = declared - smallest. A margin of a few k is a test that fails on another
machine: how much heap a module needs moves with the checkout's path (it is in the
interpreter's path strings and module names) and with the heap layout. The project keeps
every margin at 8k or more (``under_8k`` lists the exceptions; it should be empty).

Pass/fail is not monotonic in the heap (fragmentation: e.g. test_protocol_auth passed at 64k,
failed at 66k, passed at 68k and failed at 70k and 72k at the CI's checkout path), so the
bisection of ``smallest`` can land inside a failing band. ``window_failures_k`` therefore
lists the heaps from ``declared - WINDOW`` to ``declared`` (every STEP) at which the module
fails; ``fragile`` names every module with one (it should be empty too: a failure that close
below the declaration is one path change away from a red CI).
"""

import ast
import json
import re
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tools import mpy
from tools.bench import size

ROOT = Path(__file__).resolve().parents[2]
# the modules the bridge runs (tests/test_micropython.py)
MODULES = sorted(
    [*(ROOT / "tests" / "portable").glob("test_*.py"), *(ROOT / "tests" / "mpy").glob("test_*.py")]
)[: size(None, 1)]

STEP = 2
FLOOR = 16  # k: below this not even the interpreter's own start-up fits
WANT = 8
WINDOW = size(6, 0)  # k below the declared heap tried one by one


def _passed(proc):
    m = re.search(r"micropython: (\d+) passed, (\d+) failed, (\d+) skipped", proc.stdout + proc.stderr)
    return proc.returncode == 0 and m is not None and m.group(2) == "0" and m.group(3) == "0"


def smallest(run, top):
    """The smallest heap in k (STEP steps) at which ``run(heap_string)`` passes, or None when
    it does not pass at ``top`` either. Assumes more heap never hurts."""
    if not _passed(run("%dk" % top)):
        return None
    # (the smoke run: the bisection's last step only)
    lo, hi = size(FLOOR - STEP, top - 2 * STEP), top
    while hi - lo > STEP:
        mid = lo + max(STEP, (hi - lo) // (2 * STEP) * STEP)
        if mid >= hi:
            break
        if _passed(run("%dk" % mid)):
            hi = mid
        else:
            lo = mid
    return hi


def window(run, declared):
    """The heaps in k from ``declared - WINDOW`` to ``declared`` at which ``run`` fails."""
    return [k for k in range(declared - WINDOW, declared + 1, STEP) if not _passed(run("%dk" % k))]


def _row(declared, found, fails=()):
    return {
        "declared_k": declared,
        "smallest_k": found,
        "margin_k": None if found is None else declared - found,
        "window_failures_k": list(fails),
    }


def _measure(run, declared):
    return _row(declared, smallest(run, declared), window(run, declared))


def bridge_module(path):
    m = re.search(r"^# mpy-heap: (\d+)k$", path.read_text(), re.M)
    declared = int(m.group(1)) if m else 64
    rom = _measure(lambda h: mpy.run_tests(path.stem, h, "rom"), declared)
    board = _measure(lambda h: mpy.run_tests(path.stem, h, "board"), 64)
    return path.stem, rom, board


def ctl_module(spec):
    name = spec[0]
    declared = int(spec[3][:-1]) if len(spec) > 3 else 64

    def run(h):
        path = ("tests/ctl", mpy.HARNESS, "tests/portable", "tests")
        return mpy.run([mpy.RUNNER, name], heap=h, firmware="board", path=path, timeout=900)

    return name, _measure(run, declared)


def ctl64_module(spec):
    """A controller module on the 64-bit port, bytecode in the heap (its declared heap: 192k
    unless it names one)."""
    name = spec[0]
    declared = int(spec[2][:-1]) if len(spec) > 2 else 192

    def run(h):
        with tempfile.TemporaryDirectory() as work:
            return mpy.run_ctl_bytecode(name, h, work, timeout=900)

    return name, _measure(run, declared)


def ctl_modules():
    """The controller modules and their declared heaps: the list their test declares
    (tests/host/test_controller_mpy.py's MODULES), read from its source, not imported."""
    src = (ROOT / "tests" / "host" / "test_controller_mpy.py").read_text()
    for node in ast.parse(src).body:
        targets = getattr(node, "targets", ())
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in targets] == ["MODULES"]:
            return ast.literal_eval(node.value)[: size(None, 1)]
    raise RuntimeError("tests/host/test_controller_mpy.py declares no MODULES")


def main(argv):
    out = Path(argv[1] if len(argv) > 1 else ROOT / "build" / "bench")
    out.mkdir(parents=True, exist_ok=True)
    mpy.rom_image()
    mpy.board_model()
    rom, board, ctl, ctl64 = {}, {}, {}, {}
    with ThreadPoolExecutor(2) as ex:
        for name, r, b in ex.map(bridge_module, MODULES):
            rom[name], board[name] = r, b
            print("%-32s 64-bit ROM %s   board model %s" % (name, r, b), flush=True)
        for name, b in ex.map(ctl_module, ctl_modules()):
            ctl[name] = b
            print("%-32s board model %s" % (name, b), flush=True)
        for name, r in ex.map(ctl64_module, ctl_modules()):
            ctl64[name] = r
            print("%-32s 64-bit bytecode %s" % (name, r), flush=True)

    def least(rows):
        ms = [r["margin_k"] for r in rows.values()]
        return None if None in ms else min(ms)

    places = (("64-bit ROM", rom), ("board model", board), ("board model", ctl), ("64-bit bytecode", ctl64))
    under = sorted(
        "%s (%s)" % (n, where)
        for where, rows in places
        for n, r in rows.items()
        if r["margin_k"] is None or r["margin_k"] < WANT
    )
    fragile = sorted(
        "%s (%s: %s)" % (n, where, ", ".join("%dk" % k for k in r["window_failures_k"]))
        for where, rows in places
        for n, r in rows.items()
        if r["window_failures_k"]
    )
    res = {
        "step_k": STEP,
        "window_k": WINDOW,
        "fragile": fragile,
        "checkout": str(ROOT),
        "least_margin_k_rom64": least(rom),
        "least_margin_k_ctl64": least(ctl64),
        "least_margin_k_board_model": least({**board, **ctl}),
        "under_8k": under,
        "rom64": rom,
        "board_model": board,
        "board_model_ctl": ctl,
        "ctl64": ctl64,
    }
    (out / "heapmargin.json").write_text(json.dumps(res, indent=2) + "\n")
    print(
        "least margin: 64-bit ROM %sk, board model %sk; under 8k: %s; failing within %dk below the "
        "declaration: %s"
        % (
            res["least_margin_k_rom64"],
            res["least_margin_k_board_model"],
            ", ".join(under) or "none",
            WINDOW,
            ", ".join(fragile) or "none",
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
