"""Once booted, the App has MicroPython's collector run every few kB allocated
(``app.main.App.boot``: ``gc.threshold``), not only when an allocation finds no block. Between
two collections garbage holds the low heap, so whatever is made for good meanwhile -- the
link's modules at the first connection, a host's request modules, a match's objects -- goes up
the heap past it, and once the garbage goes its holes split the free space between them: the
hub's flow (pairing, ``gammon play``, watch, sync) on the board model at 64k died at the match's
first press with 4.9 kB free and no 296-byte run (docs/memory.md). Here the pattern of a
pairing or a request (garbage, then something kept, again and again) after the real App's boot:
what stays must pack low. MicroPython's ``id`` is an object's address; CPython has its own
collector and nothing to set."""

import gc
import sys

from app_power_helpers import _app, _dir


def _spread(rounds=24):
    """Garbage (six 160-byte buffers), then a 48-byte buffer kept, ``rounds`` times: how far
    apart, in bytes, the kept buffers landed."""
    keep = []
    for _ in range(rounds):
        junk = [bytearray(160) for _ in range(6)]
        keep.append(bytearray(48))
        junk = None  # noqa: F841 - garbage from here on
    ids = [id(k) for k in keep]
    return max(ids) - min(ids)


def test_once_booted_what_stays_packs_low():
    mpy = sys.implementation.name == "micropython"
    if mpy:
        gc.threshold(-1)  # as MicroPython starts: the collector only on a full heap
    app, _ = _app(_dir())
    if not mpy:
        assert app.ctl is not None and not hasattr(gc, "threshold")
        return
    every = gc.threshold()
    assert 0 < every <= 8192, every  # the App set it at boot
    gc.collect()
    packed = _spread()
    gc.threshold(-1)
    gc.collect()
    loose = _spread()  # the same pattern, collected only when the heap is full
    gc.threshold(every)
    gc.collect()
    # with a collection every few kB the kept buffers land in the lowest holes; without, they
    # go up the heap with the garbage (24 rounds: ~24 kB on the board model, twice that on
    # the 64-bit port, where objects are twice the size)
    assert packed * 2 < loose, (packed, loose)
