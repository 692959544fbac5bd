"""Set-up shared by the tests of firmware updates on the simulator
(tests/host/test_update_sim.py, tests/host/test_update_mode.py)."""

import time

from gammon import link as L
from gammon import release as R


def setup(tmp_path, monkeypatch):
    """A new release key and the simulator's firmware folder, both named to the simulator and
    the host (``SG_FW_KEY``: the unix port only), the host's config in ``tmp_path``:
    ``(seed, fw_root)``."""
    monkeypatch.setenv("GAMMON_CONFIG_DIR", str(tmp_path / "cfg"))
    seed = R.new_key()
    fw_root = tmp_path / "fwroot"
    fw_root.mkdir()
    monkeypatch.setenv("SG_FW_ROOT", str(fw_root))
    monkeypatch.setenv("SG_FW_KEY", R.public_key(seed).hex())
    return seed, fw_root


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
