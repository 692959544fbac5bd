"""app.host_side.room_for_modules under MicroPython: the table of loaded modules is grown when
the link is made (at boot, the heap whole), so the link's and a remote match's imports later,
mid-match, allocate no new table -- on the board model a 584-byte block the buttons task once
died of at a remote match's first press. No key stays behind."""

import gc
import sys

from app.host_side import room_for_modules


def _growth(keys):
    """Bytes the heap grew by while ``keys`` went into ``sys.modules`` (then out again)."""
    m = sys.modules
    gc.collect()
    before = gc.mem_alloc()
    for k in keys:
        m[k] = None
    grew = gc.mem_alloc() - before
    for k in keys:
        del m[k]
    return grew


def test_the_room_is_made_now_and_no_key_stays():
    had = sorted(sys.modules)
    total = len(had) + 40  # more than the table holds now: it must grow
    gc.collect()
    before = gc.mem_alloc()
    room_for_modules(total)
    gc.collect()
    assert gc.mem_alloc() - before >= 8 * 40  # a bigger table, made now (the keys are gone)
    assert sorted(sys.modules) == had
    keys = ["\0mod%d" % i for i in range(40)]  # (the keys themselves made first)
    assert _growth(keys) == 0  # the imports to come: no new table
    room_for_modules(len(had))  # room enough already: nothing changes
    assert sorted(sys.modules) == had
