"""Power cut at every block write of the game-end compaction (``bg.journal.pack``): the old (raw) or
the new (packed) match file, never a loss. Checks in journal_packcut.py."""

# mpy-heap: 78k
# (make bench heapmargin, 2026-11-27: smallest passing 70k on the 64-bit port; declared +8k)
# The 64-bit port with the firmware in its ROM image needs 61-64k here (measured in three
# checkouts; declared with 8k or more to spare: the figure moves with the checkout's path and
# the heap layout, tools/bench/heapmargin.py); the board model runs it with the board's 64k
# (needs < 40k). The reference match is built by journal_packref, which is dropped before the
# replays; the check module is compiled first (from source it needs the most room), then the
# firmware modules load one at a time.
import gc

gc.collect()
from journal_packcut import test_power_cut_during_game_end_compaction  # noqa: E402, F401

for _m in ("record.decode", "journal.recover", "journal.pack", "record.packdec", "record.packenc"):
    gc.collect()
    __import__("bg." + _m)
gc.collect()
