"""A manual clock and a deterministic random source for the link tests (tiny on purpose:
the crypto tests import only this)."""

import hashlib

TICKS_PERIOD = 1 << 30  # the ESP32's ticks_ms wraps here (MicroPython's TICKS_PERIOD)


class Clock:
    """``hal.Clock``-shaped manual clock that wraps like the ESP32's ``ticks_ms`` (at 2^30 ms;
    ``ticks_diff`` is signed, as ``time.ticks_diff``): tests move time with ``advance(ms)``."""

    def __init__(self, ms=1000):
        self.ms = ms
        self.unix = 1700000000

    def ticks_ms(self):
        return self.ms % TICKS_PERIOD

    def ticks_diff(self, a, b):
        return (a - b + TICKS_PERIOD // 2) % TICKS_PERIOD - TICKS_PERIOD // 2

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


# The whole link stack plus the host end in one process needs more than a 64k heap when the
# firmware's code is in the heap too (MPY_ROM=0: .mpy files or sources on the filesystem, on
# the 64-bit unix port). With the code outside the heap -- in the ROM image, or frozen into
# the board model (tools/board_model.py) as on the ESP32 -- the modules run with the bridge's
# heap, or the measured "# mpy-heap: NNk" line of a module that needs more.
NEED_HEAP = 120000
WHY = "needs a >= 120k MicroPython heap for board + host in one process (see link_fakes.py)"


def code_in_heap():
    """True when the firmware was loaded from files into the heap; False in the ROM image
    (``/rom/...``) or frozen into the interpreter (a frozen module's ``__file__`` is relative)."""
    from bg import link as protocol

    f = str(getattr(protocol, "__file__", ""))
    return f.startswith("/") and not f.startswith("/rom/")


def precompiled():
    """True when the firmware is imported as mpy-cross bytecode (as on the device)."""
    from bg import link as protocol

    return str(getattr(protocol, "__file__", "")).endswith(".mpy")


def roomy(need=NEED_HEAP, need_precompiled=None):
    """True on CPython, or on MicroPython when the heap can hold what the test loads: always
    with the firmware's code outside the heap, else ``need`` bytes with the firmware compiled
    from source here, ``need_precompiled`` when it is imported as ``.mpy`` (None: ``need``)."""
    import gc

    try:
        total = gc.mem_free() + gc.mem_alloc()
    except AttributeError:  # CPython: no heap limit
        return True
    if total >= need:
        return True  # (first: in ROM mode the image alone makes the total large enough)
    if not code_in_heap():
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
