"""gammon -- the PC tool of the smart backgammon board.

The rules engine is not copied here: ``gammon._paths`` puts the repository's ``firmware/``
directory (the portable core ``bg``) and the CPython ``micropython`` shim on ``sys.path``.
"""

from gammon import _paths  # noqa: F401  (side effect: sys.path for firmware/bg)

__version__ = "0.1.0"
