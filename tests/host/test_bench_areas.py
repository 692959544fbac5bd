"""Every ``make bench`` area imports and has its entry point, so that a benchmark broken by a
move elsewhere (a constant it reads gone from its module, a renamed function) fails ``make
test`` and not only the next ``make bench``.

Importing an area runs its module-level code (the firmware's figures it reads, the harnesses
it imports) and nothing more: no area measures at import time, so this stays fast.
"""

import ast
import importlib
import inspect
from pathlib import Path

import pytest

from tools.bench import __main__ as bench

BENCH = Path(bench.__file__).resolve().parent


def _runs_main(source):
    """True when the module ends with ``if __name__ == "__main__":`` calling ``main``."""
    for node in ast.parse(source).body:
        if (
            isinstance(node, ast.If)
            and isinstance(node.test, ast.Compare)
            and getattr(node.test.left, "id", None) == "__name__"
            and any(getattr(c, "value", None) == "__main__" for c in node.test.comparators)
        ):
            calls = [n for n in ast.walk(node) if isinstance(n, ast.Call)]
            return any(getattr(c.func, "id", None) == "main" for c in calls)
    return False


def test_the_areas_are_the_package_modules():
    names = bench.areas()
    # the discovery itself: the private modules are not areas, the known ones are
    assert "__init__" not in names and "__main__" not in names
    assert {"engine", "stall", "slots", "heapmargin", "club", "device"} <= set(names)
    assert names == sorted(p.stem for p in BENCH.glob("[!_]*.py"))


@pytest.mark.parametrize("area", bench.areas())
def test_area_imports_and_has_its_entry_point(area):
    mod = importlib.import_module("tools.bench." + area)
    assert callable(getattr(mod, "main", None)), "tools.bench.%s has no main()" % area
    # make bench runs ``python -m tools.bench.<area> OUTDIR``: main must take argv or read it
    params = inspect.signature(mod.main).parameters
    assert len(params) <= 1, "tools.bench.%s.main takes %s" % (area, list(params))
    assert _runs_main(Path(mod.__file__).read_text()), "python -m tools.bench.%s would run nothing" % area


def test_an_area_that_runs_nothing_is_caught():
    # the entry-point check can fail: a module whose __main__ block calls no main
    assert not _runs_main("def main(argv):\n    return 0\n")
    assert not _runs_main('if __name__ == "__main__":\n    print(1)\n')
    assert _runs_main('if __name__ == "__main__":\n    sys.exit(main(sys.argv))\n')
