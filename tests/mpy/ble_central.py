"""The host side of the BLE link tests (test_link_ble*.py) over the fake radio, and the
board behind it: ``setup()`` builds a board, its hub and the BLE radio (``app.ble``);
``Slots`` runs the radio's task and its links a round at a time; ``Central`` writes frames
in MTU - 3 pieces and reads the notifications back through a host end
(``bg.link.host.HostEnd``, or ``PlainHost`` for tests that never authenticate).

Imported after ``bluetooth`` (the fake, compiled from source here: the test modules import
it first, while the heap is emptiest). The host end (``bg.link.host``) is loaded only when a
``Central`` is made (a test without a host never loads it).
"""

import asyncio
import gc

import bluetooth
from app import ble
from app.link import Hub
from bg import link as P
from link_board import make_board
from link_fakes import Rand


class PlainHost:
    """The host end before authentication, on ``bg.link`` alone: what
    ``bg.link.host.HostEnd`` does while it has no session key (numbered requests without a MAC;
    the board's frames decoded and CRC-checked, a frame that fails a check comes out as a
    local ``ERROR``). Tests that never pair use it, so the heap does not hold ``bg.link.host``
    (~7 kB here) beside the board's session.

    >>> PlainHost().request(P.REQ_INFO) == P.encode_frame(P.REQ_INFO, 1, b"", 0, None, b"H")
    True
    """

    def __init__(self):
        self.dec = P.Decoder()
        self.seq = 0

    def request(self, ftype, payload=b""):
        self.seq += 1
        return P.encode_frame(ftype, self.seq, payload, 0, None, b"H")

    def feed(self, data):
        out = []
        i = 0
        while True:
            i += self.dec.feed(data, i)
            r = self.dec.next()
            while r is not None:
                fr = r[1]
                if isinstance(fr, P.Frame):
                    out.append((fr.type, fr.payload, fr.flags))
                else:  # (BAD, code)
                    out.append((P.ERROR, P.error_payload(fr, 0, 0, 0, "local: bad frame"), 0))
                r = self.dec.next()
            if i >= len(data):
                return out


class Slots:
    """The board's BLE side a round at a time: ``step()`` is one round of the radio's task
    (``BleTransport.service``: seat newcomers, evict, deadlines, advertising) and of every
    seated connection's link task. ``session``, ``mtu``, ``encrypted``, ``conn``: the newest
    seated connection's (None/False when there is none)."""

    def __init__(self, t):
        self.t = t

    def newest(self):
        s = self.t.slots()
        return s[-1] if s else None

    @property
    def session(self):
        c = self.newest()
        return c.link.session if c is not None else None

    @property
    def mtu(self):
        return self.newest().mtu

    @property
    def encrypted(self):
        c = self.newest()
        return c is not None and c.encrypted

    @property
    def conn(self):
        c = self.newest()
        return c.conn if c is not None else None

    async def step(self):
        self.t.service()
        for c in self.t.slots():
            await c.link.step()


class Central:
    """The host side over the fake radio: writes in MTU - 3 pieces, reads notifications."""

    def __init__(self, radio, link, t, plain=False):
        self.radio = radio
        self.link = link
        self.t = t
        if plain:
            self.host = PlainHost()
        else:
            from bg.link.host import HostEnd

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
    """A fresh radio, board, hub and BLE radio: ``(radio, board, hub, radio transport,
    Slots)``.

    The previous test's board goes first (the radio's handlers and any task left in the
    event loop hold it), so two boards never share the heap."""
    radio = bluetooth.BLE()
    radio._reset()
    asyncio.new_event_loop()
    gc.collect()
    board = make_board()
    hub = Hub(board)
    t = ble.BleTransport(name="Kitchen", show_code=board.codes.append, urandom=Rand(b"pk"))
    t.hub = hub  # serve() sets it; the tests step the radio and its links themselves
    hub.radios.append(t)
    return radio, board, hub, t, Slots(t)


def pair_and_auth(c, board, hub):
    h = c.host
    r = c.ask(h.pair_start(b"HOST0001", "laptop"), P.RSP | P.REQ_PAIR_START)
    c.send(h.pair_confirm(r[0][1]))
    assert c.replies() == [] and board.codes[-1] == h.value  # both show the same number
    assert hub.confirm_pairing()  # the owner presses ROLL
    r = c.ask(b"", P.RSP | P.REQ_PAIR_CONFIRM)
    key = h.pair_finish(r[0][1])
    r = c.ask(h.auth_start(b"HOST0001", key), P.RSP | P.REQ_AUTH_START)
    f = h.auth_proof(r[0][1])
    h.auth_expect()
    r = c.ask(f, P.RSP | P.REQ_AUTH_PROOF)
    h.auth_finish(r[0][1])
    return key
