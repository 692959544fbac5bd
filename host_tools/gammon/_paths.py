"""Make the firmware's portable core importable from the host tool (one copy of the engine)."""

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIRMWARE = REPO / "firmware"
SHIM = REPO / "host_tools" / "shim"

for _p in (str(SHIM), str(FIRMWARE)):
    if _p not in sys.path:
        sys.path.insert(0, _p)
