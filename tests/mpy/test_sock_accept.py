"""The simulator's socket port under MicroPython: a connection the heap cannot take is closed
and the port goes on accepting (``app.sock_link._accept``). ``asyncio.start_server``'s own loop
ended on a ``MemoryError`` while it made a connection's stream or task, and with it the port:
every later host was refused until the simulator restarted (seen on the board model with
strangers flooding the port). Here the connection's task cannot be made for the first
newcomer: it gets its socket closed, the next one is served."""

import asyncio
import random

from app import sock_link


async def _listen(hub):
    """Listen on a free port: (port, the accept loop's task)."""
    for _ in range(20):
        port = random.randint(20000, 60000)
        try:
            return port, await sock_link.serve(hub, port)
        except OSError:
            continue  # taken
    raise AssertionError("no free port")


async def _answer(writer):
    writer.write(b"served")
    await writer.drain()
    await writer.wait_closed()


def test_a_connection_the_heap_cannot_take_is_closed_and_the_port_stays_open():
    calls = []
    real = sock_link._serve_one

    def serve_one(hub, reader, writer, conns, lobby):
        # (as the connection's coroutine is made: where the heap ran out)
        calls.append(hub)
        if len(calls) == 1:
            raise MemoryError("memory allocation failed, allocating 208 bytes")
        return _answer(writer)

    async def main():
        port, accepting = await _listen("hub")
        got = []
        for _ in range(3):
            r, w = await asyncio.open_connection("127.0.0.1", port)
            got.append(await asyncio.wait_for_ms(r.read(16), 3000))
            await w.wait_closed()
        accepting.cancel()
        await asyncio.sleep_ms(0)
        return got

    sock_link._serve_one = serve_one
    try:
        got = asyncio.run(main())
    finally:
        sock_link._serve_one = real
    assert got == [b"", b"served", b"served"], got  # closed at once, then served
    assert calls == ["hub"] * 3
