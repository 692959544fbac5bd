"""app.sock_link.StreamTransport's reader pump under MicroPython: every read reaches the link,
and the end of the stream, a socket error or a read the heap cannot hold closes the connection.
Its wake-up cancels a sleep (``app.wake.Wake``), not a ``ThreadSafeFlag`` (fd-less
flags in the unix port's ``select.poll`` crashed the simulator from the fourth connection:
reproduced end to end by tests/host/test_link_strangers.py); here its contract: many
transports wait and wake at once, a wake is used up by one wait, a wait without one times
out. The end-to-end runs are tests/host/test_link_e2e.py and tests/mpy/test_link_serial_io.py."""

import asyncio
import time

from app.sock_link import StreamTransport


class _Reader:
    """A stream that delivers ``chunks`` then fails with ``error`` (None: end of stream)."""

    def __init__(self, chunks, error=None):
        self.chunks = list(chunks)
        self.error = error
        self.asked = []

    async def read(self, n):
        # (asyncio's Stream.read(n): at most n bytes, as they arrive; b"" at the end)
        self.asked.append(n)
        if self.chunks:
            c = self.chunks.pop(0)
            assert len(c) <= n
            return c
        if self.error is not None:
            raise self.error
        return b""


def _pump(reader):
    t = StreamTransport(reader, None)
    woken = []
    t.wake = lambda: woken.append(1)
    asyncio.run(t.pump_reader())
    return t, woken


def test_bytes_read_reach_the_link_then_end_of_stream_closes():
    r = _Reader([b"abc", b"de", bytes(256)])
    t, woken = _pump(r)
    assert t.read() == b"abcde" + bytes(256) and t.read() is None
    assert t.closed and t.conn is None and woken
    # each read asks at most a BLE write's worth: the transport holds no buffer of its own
    assert r.asked == [256] * 4


def test_a_read_that_runs_out_of_heap_closes_the_connection():
    # on a fragmented board heap the copy of a read can fail: the host must see the
    # connection close at once, not wait for a reply that never comes
    t, woken = _pump(_Reader([b"xy"], MemoryError("memory allocation failed")))
    assert t.read() == b"xy"
    assert t.closed and t.conn is None and woken


def test_a_socket_error_closes_the_connection():
    t, _ = _pump(_Reader([], OSError(104, "reset")))
    assert t.closed and t.conn is None and t.read() is None


def test_sixteen_transports_wait_and_wake_together():
    ts = [StreamTransport(None, None, i) for i in range(16)]
    out = {}

    async def main():
        waits = [asyncio.create_task(t.wait(3000)) for t in ts]
        await asyncio.sleep_ms(20)  # all sixteen are waiting now
        t0 = time.ticks_ms()
        for t in ts:
            t.wake()
        for w in waits:
            await w
        out["woken_ms"] = time.ticks_diff(time.ticks_ms(), t0)
        t0 = time.ticks_ms()
        await ts[0].wait(40)  # the wake was used up: nothing happened since
        out["idle_ms"] = time.ticks_diff(time.ticks_ms(), t0)
        ts[1].wake()
        ts[1].wake()  # two wakes before a wait: one early return
        t0 = time.ticks_ms()
        await ts[1].wait(1000)
        out["early_ms"] = time.ticks_diff(time.ticks_ms(), t0)

    asyncio.run(main())
    assert out["woken_ms"] < 1000
    assert out["idle_ms"] >= 35
    assert out["early_ms"] < 500


def test_a_waiting_transport_is_still_cancelled_from_outside():
    # wake() ends a wait by cancelling its sleep; a cancel that is no wake still ends the task
    t = StreamTransport(None, None)
    out = []

    async def loop():
        try:
            while True:
                await t.wait(1000)
                out.append("round")
        except asyncio.CancelledError:
            out.append("cancelled")
            raise

    async def main():
        task = asyncio.create_task(loop())
        await asyncio.sleep_ms(20)
        t.wake()
        await asyncio.sleep_ms(20)
        assert out == ["round"] and t.sleeper is task
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
        await asyncio.sleep_ms(20)

    asyncio.run(main())
    assert out == ["round", "cancelled"]
