"""app.supervisor: the watchdog is fed only while every essential task makes progress; a dead
or hung task stops the feeding and leaves its reason in the crash log; the ESP32's ticks wrap
at 2**30 ms; the first "all alive" calls on_healthy once; a heartbeat allocates nothing."""

import asyncio
import os

from app.supervisor import Supervisor
from bg import crashlog as CL

_PERIOD = 1 << 30  # the ESP32's ticks_ms period
_MASK = _PERIOD - 1  # a small int on the 32-bit board model (2**30 itself is not)
_HALF = 1 << 29


class Clock:
    """ticks_ms / ticks_diff as MicroPython's (wrapping at 2**30), set by the test."""

    def __init__(self, t=0):
        self.t = t

    def ticks_ms(self):
        return self.t

    def ticks_diff(self, a, b):
        d = (a - b) & _MASK
        return d - _HALF - _HALF if d >= _HALF else d  # small ints only: allocates nothing

    def advance(self, ms):
        self.t = (self.t + ms) & _MASK


class Wdt:
    def __init__(self):
        self.feeds = 0

    def feed(self):
        self.feeds += 1


def _root():
    r = "/tmp/bgsup_%s" % "".join("%02x" % b for b in os.urandom(6))
    os.mkdir(r)
    return r


def _rm(root):
    for n in os.listdir(root):
        os.remove(root + "/" + n)
    os.rmdir(root)


def _sup(clock, root=None, healthy=None):
    wdt = Wdt()
    cl = CL.CrashLog(root) if root else None
    s = Supervisor(wdt, clock, crashlog=cl, on_healthy=healthy, unix_time=lambda: 1763700000)
    return s, wdt, cl


def test_fed_only_while_every_task_beats_and_healthy_once():
    clock = Clock(1000)
    calls = []
    s, wdt, _ = _sup(clock, healthy=lambda: calls.append(1))
    a = s.watch("scan", 3000)
    b = s.watch("leds", 3000)
    s.beat(a)
    clock.advance(500)
    assert s.step() and wdt.feeds == 1 and not calls  # leds has not beaten yet: not healthy
    s.beat(b)
    for _ in range(5):
        clock.advance(1000)
        s.beat(a)
        s.beat(b)
        assert s.step()
    assert wdt.feeds == 6 and calls == [1]  # on_healthy once, not at every round


def test_a_task_that_stops_beating_stops_the_feeding_and_is_logged():
    root = _root()
    try:
        clock = Clock(5)
        s, wdt, cl = _sup(clock, root)
        a = s.watch("scan", 3000)
        b = s.watch("buttons", 2000)
        for _ in range(3):
            clock.advance(1000)
            s.beat(a)
            s.beat(b)
            assert s.step()
        fed = wdt.feeds
        for _ in range(2):  # buttons hangs; scan goes on
            clock.advance(1000)
            s.beat(a)
            assert s.step()  # within its 2000 ms deadline: still fed
        clock.advance(1000)
        s.beat(a)
        assert not s.step()
        for _ in range(20):  # once failed, never fed again, even if the task came back
            clock.advance(1000)
            s.beat(a)
            s.beat(b)
            assert not s.step()
        assert wdt.feeds == fed + 2
        es = cl.entries()
        assert len(es) == 1  # logged once, not once per round
        assert es[0][2] == CL.CAUSE_TASK_HUNG and es[0][3].startswith("buttons: no progress")
    finally:
        _rm(root)


def test_ticks_wrap_is_not_a_hang_and_a_hang_across_the_wrap_is():
    clock = Clock(_MASK - 1499)  # 1.5 s before the ticks wrap
    s, wdt, _ = _sup(clock)
    a = s.watch("scan", 3000)
    for _ in range(6):
        clock.advance(1000)  # crosses 2**30 -> 0
        s.beat(a)
        assert s.step(), clock.t
    clock.t = _MASK - 499
    s.beat(a)
    assert s.step()
    for _ in range(3):  # a stamp before the wrap, now after it: 3 s without progress
        clock.advance(1000)
        assert s.step()
    clock.advance(500)
    assert not s.step()
    assert s.failed[0] == CL.CAUSE_TASK_HUNG


def test_a_task_dying_with_an_exception_is_logged_with_its_traceback():
    root = _root()
    try:
        clock = Clock(0)
        s, wdt, cl = _sup(clock, root)
        a = s.watch("scan", 3000)
        b = s.watch("clock", 3000)

        async def dies():
            s.beat(a)
            await asyncio.sleep(0)
            raise ValueError("chain read failed")

        async def main():
            t = s.guard(a, asyncio.create_task(dies()))
            s.beat(b)
            for _ in range(4):
                await asyncio.sleep(0)
            assert t.done()

        asyncio.run(main())
        assert not s.step() and wdt.feeds == 0
        es = cl.entries()
        assert len(es) == 1 and es[0][2] == CL.CAUSE_TASK_DIED and es[0][1] == 1763700000
        assert es[0][3].startswith("scan: ") and "chain read failed" in es[0][3], es
    finally:
        _rm(root)


def test_a_task_that_returns_is_dead_but_a_cancelled_one_is_not():
    clock = Clock(0)
    s, _, _ = _sup(clock)
    a = s.watch("leds", 3000)
    b = s.watch("scan", 3000)

    async def returns():
        return None

    async def forever():
        while True:
            await asyncio.sleep(0)

    async def main():
        t = s.guard(b, asyncio.create_task(forever()))
        await asyncio.sleep(0)
        t.cancel()
        for _ in range(3):
            await asyncio.sleep(0)
        assert t.done()
        assert s.dead[b] is None  # the board stopping its tasks is no death
        s.guard(a, asyncio.create_task(returns()))
        for _ in range(3):
            await asyncio.sleep(0)

    asyncio.run(main())
    assert s.dead[a] == "leds: ended"
    s.beat(b)
    assert not s.step() and s.failed == (CL.CAUSE_TASK_DIED, "leds: ended")


def test_a_task_that_never_starts_is_a_hang():
    clock = Clock(0)
    s, wdt, _ = _sup(clock)
    s.watch("link", 2000)
    clock.advance(1000)
    assert s.step()  # within its first deadline
    clock.advance(1500)
    assert not s.step() and wdt.feeds == 1


def test_a_held_up_event_loop_is_not_a_hang_but_a_stall_after_it_is():
    """A long flash write holds every task up (nothing runs, the supervisor neither): when the
    loop runs again no task is blamed for the hold, but one that still makes no progress is."""
    clock = Clock(0)
    s, wdt, _ = _sup(clock)
    a = s.watch("scan", 3000)
    b = s.watch("clock", 3000)
    s.beat(a)
    s.beat(b)
    assert s.step()
    clock.advance(6000)  # the loop held for 6 s (the watchdog's timeout is longer)
    assert s.step() and s.held == 1
    for _ in range(3):
        clock.advance(1000)
        s.beat(a)  # scan runs again; clock does not
        assert s.step()
    clock.advance(1000)
    s.beat(a)
    assert not s.step() and s.failed[1].startswith("clock: no progress")
    assert wdt.feeds == 5


def test_bad_deadline_refused():
    s, _, _ = _sup(Clock(0))
    for d in (0, -5, 1 << 29):
        try:
            s.watch("x", d)
            raise AssertionError("deadline %d accepted" % d)
        except ValueError:
            pass
    assert s.names == []


def test_heartbeat_and_healthy_round_allocate_nothing():
    import micropython

    lock = getattr(micropython, "heap_lock", None)
    if lock is None:  # CPython's shim: MicroPython runs this test for real
        return
    clock = Clock(0)
    s, wdt, _ = _sup(clock)
    a = s.watch("scan", 3000)
    b = s.watch("leds", 3000)
    s.beat(a)
    s.beat(b)
    s.step()  # the first healthy round logs once (allocates): outside the lock
    clock.advance(10)  # the test's own fake clock, warmed up outside the lock
    lock()
    try:
        for _ in range(100):
            clock.advance(10)
            s.beat(a)
            s.beat(b)
            ok = s.step()
    finally:
        micropython.heap_unlock()
    assert ok and wdt.feeds == 101 and s.healthy


def test_a_task_dying_when_no_heap_is_left_is_still_dead():
    """A task that dies of MemoryError leaves no heap for its traceback's text, nor to load
    the module that writes it (the board releases ``bg.crashlog`` after boot): it is dead all
    the same, named, and the watchdog is not fed."""
    import sys

    clock = Clock(0)
    s, wdt, _ = _sup(clock)
    a = s.watch("buttons", 3000)
    b = s.watch("leds", 3000)
    saved = CL.exc_text

    def no_heap(name, e):
        raise MemoryError("memory allocation failed")

    async def dies():
        raise MemoryError("memory allocation failed, allocating 252 bytes")

    async def run(i):
        s.guard(i, asyncio.create_task(dies()))
        for _ in range(3):
            await asyncio.sleep(0)

    CL.exc_text = no_heap  # the text cannot be made
    try:
        asyncio.run(run(a))
    finally:
        CL.exc_text = saved
    assert s.dead[a] == "buttons"
    sys.modules["bg.crashlog"] = None  # the module cannot be loaded (import fails)
    try:
        asyncio.run(run(b))
    finally:
        sys.modules["bg.crashlog"] = CL
    assert s.dead[b] == "leds"
    s.beat(a)
    s.beat(b)
    assert not s.step() and wdt.feeds == 0 and s.failed == (CL.CAUSE_TASK_DIED, "buttons")


def test_no_heap_at_the_failure_still_stops_the_feeding_without_raising():
    """The supervisor's own round must survive a full heap when it finds a hung task: the
    console line and the crash-log entry fail, the feeding stops, the supervisor goes on."""

    class NoHeap:
        def add(self, cause, text, t):
            raise MemoryError("memory allocation failed")

    def log(m):
        raise MemoryError("memory allocation failed")

    clock = Clock(0)
    wdt = Wdt()
    s = Supervisor(wdt, clock, crashlog=NoHeap(), log=log)
    a = s.watch("clock", 2000)
    s.beat(a)
    for _ in range(2):
        clock.advance(1000)
        assert s.step() is True
    clock.advance(1000)
    assert s.step() is False and s.failed is not None
    clock.advance(1000)
    assert s.step() is False and wdt.feeds == 2
