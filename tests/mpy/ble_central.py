"""The host side of the BLE link tests (test_link_ble*.py) over the fake radio, and the
board behind it: ``setup()`` builds a board, its hub and the BLE transport; ``Central``
writes frames in MTU - 3 pieces and reads the notifications back through a host end.

Imported after ``bluetooth`` (the fake, compiled from source here: the test modules import
it first, while the heap is emptiest). The host end (``bg.linkhost``) is loaded only when a
``Central`` is made: board-only tests never hold it.
"""

import asyncio

import bluetooth
from app import ble as B
from app.link import Hub
from bg import protocol as P
from link_helpers import Rand, make_board


class Central:
    """The host side over the fake radio: writes in MTU - 3 pieces, reads notifications."""

    def __init__(self, radio, link, t):
        self.radio = radio
        self.link = link
        self.t = t
        from bg.linkhost import HostEnd

        self.host = HostEnd(Rand(b"central"))
        self.seen = 0

    def step(self):
        asyncio.run(self.link.step())

    def send(self, frame):
        n = self.radio.conn_mtu - 3
        for i in range(0, len(frame), n):
            self.radio._write(self.t.h_rx, frame[i : i + n])
        self.step()

    def replies(self):
        out = []
        while self.seen < len(self.radio.notified):
            conn, h, data = self.radio.notified[self.seen]
            self.seen += 1
            assert h == self.t.h_tx and len(data) <= self.radio.conn_mtu - 3
            out.extend(self.host.feed(data))
        return out

    def ask(self, frame, want):
        self.send(frame)
        r = self.replies()
        assert r and r[0][0] == want, r
        return r


def setup():
    radio = bluetooth.BLE()
    radio._reset()
    board = make_board()
    hub = Hub(board)
    t = B.BleTransport(name="Kitchen", show_code=board.codes.append, urandom=Rand(b"pk"))
    link = hub.add(t)
    return radio, board, hub, t, link


def pair_and_auth(c, board):
    h = c.host
    r = c.ask(h.pair_start(b"HOST0001", "laptop"), P.RSP | P.REQ_PAIR_START)
    r = c.ask(h.pair_confirm(r[0][1], board.codes[-1]), P.RSP | P.REQ_PAIR_CONFIRM)
    key = h.pair_finish(r[0][1])
    r = c.ask(h.auth_start(b"HOST0001", key), P.RSP | P.REQ_AUTH_START)
    f = h.auth_proof(r[0][1])
    h.auth_expect()
    r = c.ask(f, P.RSP | P.REQ_AUTH_PROOF)
    h.auth_finish(r[0][1])
    return key
