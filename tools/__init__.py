"""The repository's tools, one package: run each as a module from the repository's root
(``python -m tools.sim.server``, ``python -m tools.bench``), so ``tools.*`` imports resolve
without any script editing ``sys.path``.

* ``tools.mpy`` -- the one way to run MicroPython (the unix port, the ROM image, the board model);
* ``tools.sim`` -- the simulator (server, demo, headless heap checks);
* ``tools.bench`` -- ``make bench``: one module per area;
* ``tools/harness`` -- the firmware's harness the tests and the benchmarks share (bare-name
  modules for both interpreters; ``tools.mpy.HARNESS``);
* ``tools.deploy`` -- a real ESP32: ``make deploy``, the portable tests on a board
  (``test_device``) and the pty tests of both and of the device benchmarks;
* ``tools.hardware`` -- KiCad, OpenSCAD and ngspice files from hardware/board.json (its scripts
  still run by path: ``make hardware``);
* ``romfs``, ``rom_boot``, ``release``, ``board_model``: the firmware's images and builds;
  ``slot_study``, ``recognize_timing``, ``power_budget``, ``wiring_svg``, ``stub_fixes``: studies
  and generators.
"""

import os
import sys

# The firmware's portable core (bg) and the CPython micropython shim: gammon._paths is the one
# place that knows where they are (the repository here, the wheel's copy once installed).
from gammon import _paths as _engine_paths  # noqa: F401

# GAMMON_ENGINE_PATH: another build of bg put ahead of firmware/ (the wheel's compiled engine,
# which the engine's tests and its benchmark also run against); the tests import this package
# first (tests/conftest.py), so this is the one place for it.
ENGINE_PATH = os.environ.get("GAMMON_ENGINE_PATH")
if ENGINE_PATH and ENGINE_PATH not in sys.path:
    sys.path.insert(0, ENGINE_PATH)
