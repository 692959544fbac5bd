"""The trial of a new firmware at app level (``app.update.Trial``; both interpreters): confirmed
once the app is alive, restarted (one of its counted boots) when its deadline passes first -- measured with
ticks_diff from a recorded start, across the ticks wrap -- and rolled back after its boots."""

# mpy-heap: 84k
# (Session 7: at the CI's checkout path it failed at 72k, 4k below the 76k it had; pass/fail is not
# monotonic in the heap (fragmentation), so 84k: the last failure seen + 8k or more.)
# The 64-bit port (ROM image) passes from 68k (the test signs its bundle); declared + 8k. The
# board model runs it at the board's 64k.

import update_helpers
from app.update import Trial
from bg.update import boot
from bg.update.bundle import bundle_id, header_len
from bg.update.slots import Updater

_WRAP = 1 << 30  # the ESP32's ticks period


class _Clock:
    def __init__(self, t):
        self.t = t

    def ticks_ms(self):
        return self.t

    def ticks_diff(self, a, b):
        d = (a - b) % _WRAP
        return d - _WRAP if d >= _WRAP // 2 else d


def _pending(r):
    blob = update_helpers.make()
    u = Updater(r, [""], update_helpers.pub())
    u.begin(bundle_id(blob[: header_len(blob)]), len(blob))
    update_helpers.send(u, blob)
    u.commit()


def test_confirmed_when_alive_restarted_when_late_then_rolled_back():
    r = update_helpers.root()
    try:
        _pending(r)
        path = [""]
        assert boot.start(path, {}, r) == "a"
        clock = _Clock(_WRAP - 5000)  # the deadline runs across the ticks wrap
        restarts = []
        t = Trial(clock, lambda m: None, lambda: restarts.append(1), r, path)
        assert t.on_trial() and t.version() == "2.0.0"
        assert t.check(lambda: False) is None
        clock.t = (clock.t + boot.HEALTHY_MS - 1) % _WRAP
        assert t.check(lambda: False) is None and not restarts
        clock.t = (clock.t + 1) % _WRAP
        assert t.check(lambda: False) == "restart" and restarts == [1]
        assert boot.read_state(r) == ("-", "a", 1)  # still pending: the restart counts a boot
        assert t.check(lambda: True) is None  # once
        # the next boots: alive at once, confirmed
        path = [""]
        assert boot.start(path, {}, r) == "a"
        t = Trial(_Clock(0), lambda m: None, lambda: restarts.append(2), r, path)
        assert t.check(lambda: True) == "healthy"
        assert boot.read_state(r) == ("a", "-", 0) and restarts == [1]
        assert not t.on_trial()
        # a version that is never alive: restarted each time, rolled back after MAX_BOOTS
        _pending_b(r)
        for _ in range(boot.MAX_BOOTS):
            path = [""]
            assert boot.start(path, {}, r) == "b"
            clock = _Clock(0)
            t = Trial(clock, lambda m: None, lambda: restarts.append(3), r, path)
            clock.t = boot.HEALTHY_MS
            assert t.check(lambda: False) == "restart"
        path = [""]
        assert boot.start(path, {}, r) == "a"  # back on the last confirmed version
        assert boot.read_state(r) == ("a", "-", 0) and restarts.count(3) == boot.MAX_BOOTS
    finally:
        update_helpers.rm(r)


def _pending_b(r):
    blob = update_helpers.make("3.0.0", b"v3")
    u = Updater(r, [r + "/fw/a"], update_helpers.pub())
    u.begin(bundle_id(blob[: header_len(blob)]), len(blob))
    update_helpers.send(u, blob)
    assert u.commit() == "3.0.0"
    assert boot.read_state(r) == ("a", "b", 0)
