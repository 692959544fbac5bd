"""app.wake.Wake: the LED frame loop's, the engine task's and the link transports' wait. ``set()`` ends a wait
at once, a ``set()`` while nobody waits ends the next wait at once, ``clear()`` drops it, a wait
without ``set()`` lasts its time, a cancel that is no ``set()`` still ends the task; and on
MicroPython a waiting loop holds a few dozen bytes (``asyncio.wait_for_ms`` on an ``Event`` held
two tasks and a closure a wait: docs/memory.md)."""

import asyncio
import sys
import time

from app.wake import Wake

if not hasattr(asyncio, "sleep_ms"):  # CPython: the MicroPython name the app uses

    def _sleep_ms(ms):
        return asyncio.sleep(ms / 1000)

    asyncio.sleep_ms = _sleep_ms  # pyright: ignore[reportAttributeAccessIssue]


def _ms():
    f = getattr(time, "ticks_ms", None)
    return f() if f else int(time.time() * 1000)


def test_set_ends_a_wait_at_once_and_a_wait_lasts_its_time_otherwise():
    w = Wake()
    got = []

    async def waiter():
        t0 = _ms()
        await w.wait(2000)
        got.append(_ms() - t0)
        t0 = _ms()
        await w.wait(60)  # nobody sets it: the whole wait
        got.append(_ms() - t0)

    async def main():
        t = asyncio.create_task(waiter())
        await asyncio.sleep_ms(20)
        w.set()
        w.set()  # a second set() before the waiter ran: one wake
        while not t.done():
            await asyncio.sleep_ms(5)

    asyncio.run(main())
    assert got[0] < 1000, got  # woken, not timed out
    assert got[1] >= 50, got
    assert not w.flag and w.sleeper is None


def test_a_set_before_the_wait_ends_it_at_once_and_clear_drops_it():
    w = Wake()
    got = []

    async def main():
        w.set()
        t0 = _ms()
        await w.wait(2000)
        got.append(_ms() - t0)
        w.set()
        w.clear()  # the frame loop painted what the set() asked for
        t0 = _ms()
        await w.wait(60)
        got.append(_ms() - t0)

    asyncio.run(main())
    assert got[0] < 500 and got[1] >= 50, got


def test_a_cancel_that_is_no_set_still_ends_the_task():
    w = Wake()

    async def loop():
        while True:
            await w.wait(1000)

    async def main():
        t = asyncio.create_task(loop())
        await asyncio.sleep_ms(10)
        t.cancel()  # the board stopping its tasks
        await asyncio.sleep_ms(10)
        return t.done()

    assert asyncio.run(main())


def test_a_waiting_loop_holds_a_few_dozen_bytes():
    if sys.implementation.name != "micropython":
        return  # CPython's heap is not the board's
    import gc

    w = Wake()
    seen = []

    async def loop():
        while True:
            await w.wait(40)

    async def main():
        gc.collect()
        a = gc.mem_alloc()
        t = asyncio.create_task(loop())
        for _ in range(5):
            await asyncio.sleep_ms(15)  # the loop waits, is woken, times out
            w.set()
            await asyncio.sleep_ms(0)
            gc.collect()
            seen.append(gc.mem_alloc() - a)
        t.cancel()
        await asyncio.sleep_ms(0)

    asyncio.run(main())
    # the task and its coroutine; wait_for_ms on an Event held ~0.6 kB more on the board model
    assert max(seen) <= 320, seen
