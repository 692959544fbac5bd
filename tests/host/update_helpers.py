"""Set-up shared by the tests of firmware updates on the simulator
(tests/host/test_update_sim.py, tests/host/test_update_mode.py)."""

import time

from gammon import link as L


def connect(address, timeout=30.0):
    """A link connection to the board at ``address``, tried again for ``timeout`` s while the
    board restarts (into update mode, or out of it)."""
    end = time.monotonic() + timeout
    while True:
        try:
            return L.connect(address)
        except (L.LinkError, OSError, ValueError):
            if time.monotonic() > end:
                raise
            time.sleep(0.3)


def state(fw_root):
    """The board's update state file (``fw/state``): its words."""
    return (fw_root / "fw" / "state").read_text().split()
