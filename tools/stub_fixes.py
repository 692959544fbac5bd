"""Local overrides for the ESP32 type stubs, applied by `make` after installing them in .stubs/.

Only where a stub is known to be wrong against MicroPython's documented API. Each fix names
the exact text it replaces and fails loudly when that text is gone, so a stub release that
fixes (or moves) it is noticed and the override removed.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (file, wrong text, right text, why)
FIXES = [
    (
        "bluetooth.pyi",
        "def gatts_notify(self, value_handle: memoryview, data: bytes, /) -> None:",
        "def gatts_notify(self, conn_handle: int, value_handle: memoryview, "
        "data: bytes | None = None, /) -> None:",
        "BLE.gatts_notify(conn_handle, value_handle, data=None): the stub drops conn_handle "
        "(docs.micropython.org/en/latest/library/bluetooth.html#bluetooth.BLE.gatts_notify)",
    ),
]


def main(stubs=ROOT / ".stubs"):
    for name, wrong, right, why in FIXES:
        p = Path(stubs) / name
        text = p.read_text()
        if right in text:
            continue
        if wrong not in text:
            print("stub_fixes: %s no longer has the text this override replaces: %s" % (name, why))
            return 1
        p.write_text(text.replace(wrong, right))
        print("stub_fixes: %s: %s" % (name, why))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
