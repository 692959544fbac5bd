"""``make bench``: one module per area (``python -m tools.bench.<area> OUTDIR``), merged into
one JSON report by ``python -m tools.bench`` (``__main__``).

The benchmarks drive the firmware through the portable tests' own harnesses (``ctl_helpers``,
``link_fakes``, ``link_helpers``, ``link_board`` in tests/portable), which are written to run on
both interpreters: on MicroPython they come from MICROPYPATH (tools.mpy), on CPython from here.
"""

import sys
from pathlib import Path

# The one sys.path edit of the benchmarks: the portable test harnesses for the CPython side (the
# MicroPython side gets the same folder on MICROPYPATH), so a benchmark runs the code the tests run.
PORTABLE_HELPERS = str(Path(__file__).resolve().parents[2] / "tests" / "portable")
if PORTABLE_HELPERS not in sys.path:
    sys.path.append(PORTABLE_HELPERS)
