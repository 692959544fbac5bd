"""app.sock_link.StreamTransport's reader pump under MicroPython (its wake-up flag is
MicroPython's ``asyncio.ThreadSafeFlag``): every read reaches the link, and the end of the
stream, a socket error or a read the heap cannot hold closes the connection. The end-to-end
runs are tests/host/test_link_e2e.py and tests/mpy/test_link_serial_io.py."""

import asyncio

from app.sock_link import StreamTransport


class _Reader:
    """A stream that delivers ``chunks`` then fails with ``error`` (None: end of stream)."""

    def __init__(self, chunks, error=None):
        self.chunks = list(chunks)
        self.error = error

    async def readinto(self, buf):
        if self.chunks:
            c = self.chunks.pop(0)
            buf[: len(c)] = c
            return len(c)
        if self.error is not None:
            raise self.error
        return 0


def _pump(reader):
    t = StreamTransport(reader, None)
    woken = []
    t.wake = lambda: woken.append(1)
    asyncio.run(t.pump_reader())
    return t, woken


def test_bytes_read_reach_the_link_then_end_of_stream_closes():
    t, woken = _pump(_Reader([b"abc", b"de"]))
    assert t.read() == b"abcde" and t.read() is None
    assert t.closed and t.conn is None and woken


def test_a_read_that_runs_out_of_heap_closes_the_connection():
    # on a fragmented board heap the copy of a read can fail: the host must see the
    # connection close at once, not wait for a reply that never comes
    t, woken = _pump(_Reader([b"xy"], MemoryError("memory allocation failed")))
    assert t.read() == b"xy"
    assert t.closed and t.conn is None and woken


def test_a_socket_error_closes_the_connection():
    t, _ = _pump(_Reader([], OSError(104, "reset")))
    assert t.closed and t.conn is None and t.read() is None
