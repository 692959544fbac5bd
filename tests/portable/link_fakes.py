"""A manual clock and a deterministic random source for the link tests (tiny on purpose:
the crypto tests import only this)."""

import hashlib


class Clock:
    """``hal.Clock``-shaped manual clock: tests move time with ``advance(ms)``."""

    def __init__(self):
        self.ms = 1000
        self.unix = 1700000000

    def ticks_ms(self):
        return self.ms

    def ticks_diff(self, a, b):
        return a - b

    def unix_time(self):
        return self.unix

    def set_unix_time(self, t):
        self.unix = t

    def advance(self, ms):
        self.ms += ms


class Rand:
    """Deterministic ``urandom``: SHA-256 in counter mode over a seed."""

    def __init__(self, seed=b"seed"):
        self.seed = seed
        self.n = 0

    def __call__(self, n):
        out = b""
        while len(out) < n:
            self.n += 1
            out += hashlib.sha256(self.seed + str(self.n).encode()).digest()
        return out[:n]


class SkipTest(Exception):
    """The runner's skip signal (any exception class of this name)."""


# The whole link stack plus the host end in one process can need more than a 64k heap on the
# 64-bit unix port (its objects are twice the ESP32's size, and the test helpers are compiled
# from source here). With the firmware in the ROM image most link modules fit the 64k working
# heap; a module that does not says so with a measured "# mpy-heap: 96k" line for the bridge.
# Without the image (MPY_ROM=0: code in the heap) they skip, with this reason, when too small.
NEED_HEAP = 120000
WHY = "needs a >= 120k MicroPython heap for board + host in one process (see link_fakes.py)"


def precompiled():
    """True when the firmware is imported as mpy-cross bytecode (as on the device)."""
    from bg import protocol

    return str(getattr(protocol, "__file__", "")).endswith(".mpy")


def roomy(need=NEED_HEAP, need_precompiled=None):
    """True on CPython, or on MicroPython when the heap can hold what the test loads:
    ``need`` bytes with the firmware compiled from source here, ``need_precompiled`` when
    the bridge imports it as ``.mpy`` (None: same as ``need``)."""
    import gc

    try:
        total = gc.mem_free() + gc.mem_alloc()
    except AttributeError:  # CPython: no heap limit
        return True
    if need_precompiled is not None and precompiled():
        need = need_precompiled
    return total >= need


def skip_all(namespace):
    """Replace every ``test_*`` of a module by a skip (the heap is too small)."""

    def skipped():
        raise SkipTest(WHY)

    for name in list(namespace):
        if name.startswith("test_"):
            namespace[name] = skipped
