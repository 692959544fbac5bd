"""``make bench``: one module per area (``python -m tools.bench.<area> OUTDIR``), merged into
one JSON report by ``python -m tools.bench`` (``__main__``).

The benchmarks drive the firmware through the harness the tests use too (``tools/harness``:
``ctl_helpers``, ``link_fakes``, ``link_helpers``, ``link_board``, ``journal_flash``), written
to run on both interpreters: on MicroPython it comes from MICROPYPATH (``tools.mpy.HARNESS``),
on CPython from here.
"""

import sys

from tools import mpy

# The one sys.path edit of the benchmarks: the harness's bare-name modules (they import each
# other by bare name, as MicroPython loads them) for the CPython side, so a benchmark runs the
# code the tests run.
HARNESS = str(mpy.ROOT / mpy.HARNESS)
if HARNESS not in sys.path:
    sys.path.append(HARNESS)
