"""The repository's tools, one package: run each as a module from the repository's root
(``python -m tools.sim.server``, ``python -m tools.bench``), so ``tools.*`` imports resolve
without any script editing ``sys.path``.

* ``tools.mpy`` -- the one way to run MicroPython (the unix port, the ROM image, the board model);
* ``tools.sim`` -- the simulator (server, demo, headless heap checks);
* ``tools.bench`` -- ``make bench`` and its benchmarks;
* ``tools.deploy`` -- a real ESP32: deploy, the device benchmarks and tests, and their pty tests;
* ``tools.hardware`` -- KiCad, OpenSCAD and ngspice files from hardware/board.json;
* ``romfs``, ``rom_boot``, ``release``, ``board_model``: the firmware's images and builds.
"""

# The firmware's portable core (bg) and the CPython micropython shim: gammon._paths is the one
# place that knows where they are (the repository here, the wheel's copy once installed).
from gammon import _paths as _engine_paths  # noqa: F401
