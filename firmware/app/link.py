"""The link task: one ``Link`` per transport (BLE, USB serial, simulator socket) drives the
protocol (``bg.link.session.Session``) without ever blocking the game.

A transport is any object with:

- ``conn``: an identity of the current connection, ``None`` when nobody is connected (a new
  value means a new host: the old session is closed, a fresh one starts);
- ``mtu``: the negotiated ATT MTU (streams report a large one, e.g. 515);
- ``read()``: the bytes received since the last call, or ``None`` -- never blocks;
- ``async send(frame)``: transmit one whole frame (the transport splits it into packets of
  ``mtu - 3`` bytes and paces them);
- ``async wait(ms)``: return when something happened (data, connect, disconnect, a ``wake()``)
  or after ``ms`` milliseconds;
- ``wake()``: make ``wait`` return (called by ``Hub.publish``);
- optionally ``drop()``: end the current connection (BLE: disconnect; socket: close; serial:
  nothing to end, the port is ignored until the host's next HELLO). The board drops a
  connection that stays unauthenticated too long (``Board.poll``) and one whose round failed
  (``Link.run``: a frame the heap could not hold); the link serves the transport again only
  when ``conn`` changes (a new connection).

The controller talks to the ``Hub``: ``hub.publish(record_bytes)`` queues a confirmed action
for every watching host and returns at once; ``hub.open_pairing()`` / ``hub.revoke_all()``
are the board's button combos; ``hub.confirm_pairing()`` is the ROLL press that confirms the
pairing whose comparison value the board shows, ``hub.reject_pairing()`` the CUBE press that
refuses it.

Example::

    hub = Hub(Board(store, clock, os.urandom, show_code=view.show_code))
    asyncio.create_task(BleTransport(name=store.get_name()).serve(hub))  # its own links
    ...
    hub.publish(record)          # from the controller, after each confirmed action
"""

import asyncio
import time

from micropython import const

_IDLE_RESET_MS = const(2000)  # a partial frame older than this is dropped (stalled/hostile sender)
_WAIT_MS = const(250)
CLAIM_AUTH = const(1)  # claim(): an AUTH_START naming a paired host
CLAIM_PAIR = const(2)  # claim(): a PAIR_START


# The transports' shared parts live here, not in one transport's module: the board's BLE link
# (app.ble) then does not import the simulator's socket transport (app.sock_link, ~0.9 kB on
# the 32-bit board model) for them.
def claim(board, buf):
    """What a waiting newcomer's first frames claim: ``CLAIM_AUTH`` (an AUTH_START naming a
    paired host), ``CLAIM_PAIR`` (a PAIR_START) or 0; the socket's and BLE's rule for who may
    take a slot. Only whole frames with a valid CRC count, from the first byte on (a host sends
    its INFO and AUTH_START at once: ``gammon.link.connect``)."""
    from bg.link import HEADER, REQ_AUTH_START, REQ_PAIR_START, crc16

    i = 0
    for _ in range(3):
        if len(buf) < i + HEADER + 2 or buf[i] != 0xA7 or buf[i + 2]:
            return 0
        n = buf[i + 5] | buf[i + 6] << 8
        e = i + HEADER + n
        if n > 160 or len(buf) < e + 2 or crc16(buf, i, e) != buf[e] | buf[e + 1] << 8:
            return 0
        t = buf[i + 1]
        if t == REQ_AUTH_START and n >= 8:
            return CLAIM_AUTH if board.find_host(bytes(buf[i + HEADER : i + HEADER + 8])) is not None else 0
        if t == REQ_PAIR_START:
            return CLAIM_PAIR
        i = e + 2
    return 0


class Link:
    """Runs the protocol over one transport. ``run()`` is the asyncio task."""

    def __init__(self, board, transport):
        self.board = board
        self.t = transport
        self.session = None
        self.conn = None
        self.last_rx = 0
        self.frames_out = 0
        self.running = True
        self.beat = None  # called each round: the watchdog supervisor's heartbeat (app.watch)

    def _switch(self):
        c = self.t.conn
        if c == self.conn:
            return
        if self.session is not None:
            self.session.close()
            self.session = None
        self.conn = c
        if c is not None:
            from bg.link.session import Session  # the protocol's code: loaded by the first host

            self.session = Session(self.board, self.t.mtu)
            self.last_rx = time.ticks_ms()

    async def step(self):
        """One round: adopt a new connection, feed received bytes, send what is due."""
        self._switch()
        data = self.t.read()  # also lets the transport do its housekeeping (re-advertise)
        s = self.session
        if s is None:
            return
        self.board.poll()
        if s.expired:  # unauthenticated too long (docs/protocol.md): free the connection slot
            s.close()
            self.session = None  # self.conn stays: no new session until a new connection
            drop = getattr(self.t, "drop", None)
            if drop is not None:
                drop()
            return
        s.set_mtu(self.t.mtu)
        now = time.ticks_ms()
        if data:
            s.feed(data)
            self.last_rx = now
        elif s.dec.pending() and time.ticks_diff(now, self.last_rx) > _IDLE_RESET_MS:
            s.dec.reset()
        conn = self.conn
        f = s.pump()
        while f is not None:
            await self.t.send(f)
            self.frames_out += 1
            if self.t.conn != conn:
                return
            # received bytes (an ACK, a CANCEL) are handled between frames
            data = self.t.read()
            if data:
                s.feed(data)
                self.last_rx = time.ticks_ms()
            f = s.pump()

    async def run(self):
        while self.running:
            await self.t.wait(_WAIT_MS)
            b = self.beat
            if b is not None:
                b()
            try:
                await self.step()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - the link must never take the board down
                print("link: error", repr(e))
                if self.session is not None:
                    self.session.close()
                    self.session = None
                # the host sees its connection end: with only the session gone it would wait
                # out its timeout for the answer this round could not make
                drop = getattr(self.t, "drop", None)
                if drop is not None:
                    drop()
                self.conn = None
                await asyncio.sleep_ms(100)
        if self.session is not None:
            self.session.close()


class Hub:
    """The board's links and the controller's entry points."""

    def __init__(self, board):
        self.board = board
        self.links = []
        self.radios = []  # transports that seat their own links (app.ble): told of revoke_all
        self.beat = None  # given to every link (app.watch.link)

    def add(self, transport):
        link = Link(self.board, transport)
        link.beat = self.beat
        self.links.append(link)
        return link

    def remove(self, link):
        link.running = False
        if link in self.links:
            self.links.remove(link)

    def publish(self, record):
        """Queue one confirmed action record for watching hosts; never blocks."""
        self.board.publish(record)
        for link in self.links:
            link.t.wake()

    def open_pairing(self, ms=60000):
        self.board.open_pairing(ms)

    def confirm_pairing(self):
        """The board's confirm (ROLL) press: True when it confirmed a shown pairing value."""
        if not self.board.confirm_pairing():
            return False
        for link in self.links:
            link.t.wake()
        return True

    def reject_pairing(self):
        """The board's CUBE press while a pairing value is shown: the user says it differs."""
        if not self.board.reject_pairing():
            return False
        for link in self.links:
            link.t.wake()
        return True

    def revoke_all(self):
        """Forget every paired host (the board's revoke-all gesture); a transport that keeps
        radio bonds forgets them too (``forget_bonds``: a stolen laptop's BLE bond)."""
        self.board.revoke_all()
        for r in self.radios:
            r.forget_bonds()
        for link in self.links:
            link.t.wake()
