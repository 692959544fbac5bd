"""Make the firmware's portable core importable from the host tool (one copy of the engine).

Installed from its wheel, ``gammon/_fw`` holds the engine (``bg``, copied from ``firmware/bg``
and its move generator compiled for CPython when the wheel was built: host_tools/setup.py) and
the CPython ``micropython`` shim. Run from the repository (an editable install, the tests),
there is no ``_fw`` and the repository's ``firmware/`` and ``host_tools/shim`` are used.
Either way one folder per name goes on ``sys.path``: ``bg`` and ``micropython`` are imported by
those names inside the engine itself.
"""

import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
PACKAGED = _HERE / "_fw"
if PACKAGED.is_dir():
    ENGINE_PATHS = (PACKAGED,)
else:
    _REPO = _HERE.parents[1]
    ENGINE_PATHS = (_REPO / "host_tools" / "shim", _REPO / "firmware")

for _p in map(str, reversed(ENGINE_PATHS)):
    if _p not in sys.path:
        sys.path.insert(0, _p)


def engine_compiled():
    """True when the move generator in use is the compiled one (an extension module)."""
    from bg.engine import _core

    return not _core.__file__.endswith(".py")
