"""Power cut at every block write of the game-end compaction (``bg.jpack``): the old (raw) or
the new (packed) match file, never a loss. Checks in journal_packcut.py."""

# mpy-heap: 128k
# Why 128k: this one interpreter holds the journal, its recovery, the engine's visit, both
# pack halves, the flash emulator and the reference match (~55 KiB of bytecode in the heap).
# On the board the firmware is frozen into flash (firmware/manifest.py), so none of that code
# is heap; packing and expansion themselves are run at 64k by tests/portable/test_record_pack.
# This module stays tiny; the check module is compiled first (from source it needs the
# most room), then the firmware modules load one at a time (under the runner's 64k heap).
import gc

gc.collect()
from journal_packcut import test_power_cut_during_game_end_compaction  # noqa: E402, F401

for _m in ("recdec", "jrecover", "jpack", "packdec", "packenc"):
    gc.collect()
    __import__("bg." + _m)
gc.collect()
