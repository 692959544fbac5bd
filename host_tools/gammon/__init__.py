"""gammon -- the PC tool of the smart backgammon board.

The rules engine is not copied here: ``gammon._paths`` puts the firmware's portable core
``bg`` and the CPython ``micropython`` shim on ``sys.path`` (from the wheel's ``gammon/_fw``,
built from ``firmware/bg``, or from the repository).
"""

from gammon import _paths  # noqa: F401  (side effect: sys.path for bg)

__version__ = "0.1.0"
