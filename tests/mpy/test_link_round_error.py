"""app.link.Link when a round of its session fails -- a MemoryError making a frame the heap has
no block for (the board model playing another board, its journal fetched at the match's end):
the session is closed and the connection dropped, so the host sees its connection end at once.
Before, the session was dropped but the connection stayed open and the host waited out its
timeout for an answer that never came. A transport without ``drop`` is left as it was."""

import asyncio

from app.link import Link
from link_board import make_board


class _Transport:
    """A connected host whose every round fails (``pump`` raises); ``drop()`` ends the
    connection as app.sock_link's does (``conn`` None)."""

    mtu = 515

    def __init__(self, can_drop=True):
        self.conn = 1
        self.sent = []
        self.dropped = 0
        if not can_drop:
            self.drop = None

    def read(self):
        return None

    async def send(self, frame):
        self.sent.append(frame)

    async def wait(self, ms):
        await asyncio.sleep_ms(1)

    def wake(self):
        pass

    def drop(self):
        self.dropped += 1
        self.conn = None


def _fail(msg):
    raise MemoryError(msg)


def _one_failed_round(t):
    link = Link(make_board(), t)
    link._switch()  # the host's session
    first = link.session
    first.pump = lambda: _fail("memory allocation failed, allocating 502 bytes")

    async def main():
        task = asyncio.create_task(link.run())
        for _ in range(100):
            await asyncio.sleep_ms(5)
            if link.session is not first:
                break
        link.running = False
        await asyncio.sleep_ms(150)
        task.cancel()

    asyncio.run(main())
    return link, first


def test_a_round_that_fails_drops_the_connection():
    t = _Transport()
    link, first = _one_failed_round(t)
    assert t.dropped == 1 and t.conn is None
    assert link.session is None and link.conn is None
    assert first not in link.board.sessions  # closed: no session of it stays on the board
    assert t.sent == []


def test_a_transport_without_drop_gets_a_new_session_on_its_next_round():
    # (the serial port: nothing to end; what the link did before for every transport)
    t = _Transport(can_drop=False)
    link, first = _one_failed_round(t)
    assert t.conn == 1 and first not in link.board.sessions
