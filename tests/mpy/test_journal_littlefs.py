"""bg.journal on real littlefs (vfs.VfsLfs2, 4096-byte blocks): storage full, bytes flipped
in the flash image, the volume missing or gone -- a clear state, nothing stored lost.

The cases live in journal_lfs_cases.py: this module stays tiny so that, under the runner's
64k heap, the firmware modules load first into an unfragmented heap (journal_load)."""

# mpy-heap: 68k
# The 64-bit port with the firmware in its ROM image needs 53-58k here (measured in two
# checkouts); declared with 8k or more to spare: the figure moves with the checkout's path and
# the heap layout (tools/bench/heapmargin.py). On the board model it runs with the board's 64k
# (needs < 40k): docs/memory.md.

import gc

gc.collect()
import journal_load  # noqa: E402, F401

gc.collect()
import journal_flash  # noqa: E402, F401

gc.collect()
from journal_lfs_cases import (  # noqa: E402, F401
    test_bytes_flipped_in_the_flash_image,
    test_missing_and_vanishing_volume,
    test_storage_full_loses_nothing_and_recovers_after_a_delete,
)
