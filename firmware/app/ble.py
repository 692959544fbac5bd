"""BLE transport: a GATT peripheral on MicroPython's ``bluetooth`` module.

One primary service with two characteristics (128-bit UUIDs, see docs/protocol.md):

- ``RX`` (write, write-without-response): the host writes request bytes, at most MTU - 3 per
  write; the stream may split a frame over several writes;
- ``TX`` (notify): the board notifies response/event/data bytes, at most MTU - 3 each.

Several centrals at once, so a stranger cannot keep the owner out. NimBLE in MicroPython's
ESP32 build holds up to ``STACK_CONNS`` (4) connections; the board serves ``MAX_SLOTS`` (3) of
them, each its own ``app.link`` transport (``BleConn``) with its own ``Link`` and session, and
keeps the fourth for a newcomer (the *lobby*): advertising goes on while the stack has room, so
a newcomer can always arrive. A newcomer gets a free slot at once; when all are taken it waits
in the lobby (its first writes kept, no session), and ``BleTransport.service``:

- evicts the oldest slot holder that has not logged in, is not pairing and is not proving a
  paired host's key (``Session.claimed``) at once when the newcomer's first frames hold an
  AUTH_START naming a paired host or a PAIR_START in an open window (``app.link.claim``,
  the same rule as the simulator's socket);
- otherwise evicts only such a holder that had its slot ``GRACE_MS`` (a stranger's reconnects
  churn a slot at most that often), and disconnects a newcomer that found none within
  ``LOBBY_MS``;
- disconnects a connection that does not encrypt within ``ENCRYPT_MS`` (a bonded host
  re-encrypts in a few connection events), or ``PASSKEY_MS`` once the board showed a passkey
  for it (a person is typing it; the Security Manager's own timeout).

A connection gets a session only once its link is encrypted, so a stranger that never bonds
costs the heap a ``BleConn`` (~340 bytes on the board model), not a session (~1 kB more;
docs/protocol.md, *BLE*).

The IRQ handler records what happened and sets a flag; the ``serve`` task does the work. Two
things must happen in the IRQ: the bond store (``_IRQ_GET_SECRET``/``_IRQ_SET_SECRET`` answer
synchronously) and reading a write (the RX value is one buffer for every connection, so each
write is taken out for its connection before the next one lands; ESP32's NimBLE build calls
the handler synchronously from the host task, which may allocate).

Security at the radio layer: ``config(bond=True, mitm=True, le_secure=True,
io=DISPLAY_ONLY)`` asks for LE Secure Connections with passkey entry; the stack's passkey is
shown with the same ``show_code`` as the protocol's pairing code. The link is **encrypted on
the air**: RX is registered with ``_FLAG_WRITE_ENCRYPTED``, so the stack refuses a write on an
unencrypted link (ATT error "insufficient encryption", which makes the central's OS bond),
and nothing is notified on TX until ``_IRQ_ENCRYPTION_UPDATE`` reports the connection
encrypted (MicroPython has no notify-side flag). The protocol's own challenge-response
(bg.link.session) is still what authorises a host, on every transport.

Example::

    t = BleTransport(name="Gammon", show_code=view.show_code)
    hub.radios.append(t)
    asyncio.create_task(t.serve(hub))
"""

import asyncio
import struct

import bluetooth
from app.link import claim
from app.wake import Wake
from bg.serialwire import BLE_RX_UUID, BLE_SERVICE_UUID, BLE_TX_UUID
from micropython import const

_IRQ_CENTRAL_CONNECT = const(1)
_IRQ_CENTRAL_DISCONNECT = const(2)
_IRQ_GATTS_WRITE = const(3)
_IRQ_MTU_EXCHANGED = const(21)
_IRQ_ENCRYPTION_UPDATE = const(28)
_IRQ_GET_SECRET = const(29)
_IRQ_SET_SECRET = const(30)
_IRQ_PASSKEY_ACTION = const(31)

_IO_CAPABILITY_DISPLAY_ONLY = const(0)
# Characteristic permission flag (docs.micropython.org bluetooth: defined by the application,
# the module exports only the basic FLAG_* names): writes need an encrypted link.
_FLAG_WRITE_ENCRYPTED = const(0x1000)
_PASSKEY_ACTION_DISP = const(3)

_ADV_TYPE_FLAGS = const(0x01)
_ADV_TYPE_NAME = const(0x09)
_ADV_TYPE_UUID128_COMPLETE = const(0x07)
_ADV_INTERVAL_US = const(250000)
_RX_BUFFER = const(1024)
_PREFERRED_MTU = const(247)

STACK_CONNS = const(4)  # CONFIG_BT_NIMBLE_MAX_CONNECTIONS in MicroPython's ESP32 sdkconfig.ble
MAX_SLOTS = const(3)  # centrals served at once; the stack's last connection is the lobby
GRACE_MS = const(1000)  # a holder keeps its slot this long before a plain newcomer may take it
LOBBY_MS = const(1500)  # a newcomer that claims nothing waits this long for a slot
ENCRYPT_MS = const(3000)  # a connection not encrypted this long (no passkey shown) is dropped
PASSKEY_MS = const(30000)  # ... with a passkey shown: SMP's 30 s pairing timeout
_FIRST = const(128)  # a newcomer's first bytes kept in the lobby (INFO + AUTH_START or PAIR_START)
_RX_CHUNKS = const(64)  # writes waiting for the link task; more: a flood, the central is dropped
_TICK_MS = const(100)  # the serve task's round when nothing happens (deadlines)

SERVICE_UUID = BLE_SERVICE_UUID  # bg.serialwire: one copy for the board and the host
RX_UUID = BLE_RX_UUID  # host -> board (write)
TX_UUID = BLE_TX_UUID  # board -> host (notify)


def _adv_field(kind, data):
    return struct.pack("BB", len(data) + 1, kind) + data


def uuid128_le(text):
    """The 16 bytes of a 128-bit UUID string in air order (little-endian)."""
    h = text.replace("-", "")
    return bytes(int(h[i : i + 2], 16) for i in range(30, -1, -2))


def advertising_payload(uuid_text):
    """Flags (LE general discoverable, no BR/EDR) + the complete 128-bit service UUID."""
    return _adv_field(_ADV_TYPE_FLAGS, b"\x06") + _adv_field(
        _ADV_TYPE_UUID128_COMPLETE, uuid128_le(uuid_text)
    )


def scan_response(name):
    """The board's complete name (cut to fit the 31-byte scan response)."""
    return _adv_field(_ADV_TYPE_NAME, name.encode()[:29])


class Waker:
    """The ``wait``/``wake`` half of a task woken from an IRQ (BLE): an IRQ-safe flag with a
    timeout. Each ``ThreadSafeFlag`` is polled like a file; on the unix port ``select.poll``
    corrupts such fd-less entries once its array grows (a segfault with a few of them), so
    there is one, the radio's: each connection's transport is an ``app.wake.Wake``."""

    def __init__(self):
        self.flag = asyncio.ThreadSafeFlag()
        self.ticking = False

    def wake(self):
        self.flag.set()

    async def wait(self, ms):
        """Return when woken, or within ``ms``: a task of its own sets the flag every ``ms``
        (made by the first wait, for the radio's life; ``serve`` always waits ``_TICK_MS``).
        ``asyncio.wait_for_ms`` made two tasks and a closure for every wait, held while the
        radio waits: ~1.5 kB on the 32-bit board model against ~0.5 kB (docs/memory.md)."""
        if not self.ticking:
            self.ticking = True
            asyncio.create_task(self._tick(ms))
        await self.flag.wait()

    async def _tick(self, ms):
        while True:
            await asyncio.sleep_ms(ms)
            self.flag.set()


class BleConn(Wake):
    """One central: the ``app.link`` transport of one connection handle. ``conn`` stays None
    until the link is encrypted (no session before: nothing may pass in clear)."""

    def __init__(self, radio, handle):
        super().__init__()
        self.radio = radio
        self.handle = handle
        self.mtu = 23
        self.up = True
        self.encrypted = False
        self.passkey = False  # the board showed a passkey for it: a person is typing
        self.since = None  # board ticks when the serve task first saw it
        self.rx = []  # writes not read yet
        self.nrx = 0  # bytes written since it connected, up to _FIRST + 1 (the lobby's claim)
        self.link = None  # its app.link.Link once it has a slot
        self.task = None

    @property
    def conn(self):
        return self.handle if self.up and self.encrypted else None

    def read(self):
        if not self.rx or not self.encrypted:
            return None
        data = b"".join(self.rx)
        self.rx = []
        return data

    def drop(self):
        """Disconnect this central (the board dropped an unauthenticated host)."""
        if self.up:
            self.radio.ble.gap_disconnect(self.handle)

    def forget_bonds(self):
        self.radio.forget_bonds()

    async def send(self, frame):
        """Notify ``frame`` in pieces of MTU - 3 bytes; a full controller queue (OSError) is
        retried after a short sleep, so a slow central slows the link, not the game. Nothing
        is sent on a link that is not encrypted."""
        ble = self.radio.ble
        h = self.radio.h_tx
        i = 0
        tries = 0
        while i < len(frame):
            n = self.mtu - 3
            if not self.up or not self.encrypted:  # never in clear on the air
                return
            try:
                # the ESP32 stub lists two arguments; the documented call is
                # gatts_notify(conn_handle, value_handle, data)
                ble.gatts_notify(self.handle, h, frame[i : i + n])
            except OSError:
                tries += 1
                if tries > 200:  # ~2 s without progress: give up on this connection
                    self.drop()
                    return
                await asyncio.sleep_ms(10)
                continue
            tries = 0
            i += n
            await asyncio.sleep_ms(0)


class BleTransport(Waker):
    """The radio: GATT service, advertising, bonds and the connections (``BleConn``), each
    served by its own ``app.link.Link`` once it has a slot. ``serve(hub)`` is the task."""

    def __init__(self, name="Gammon", show_code=None, urandom=None, ble=None):
        super().__init__()
        self.name = name
        self.show_code = show_code
        self.urandom = urandom
        self.ble = ble if ble is not None else bluetooth.BLE()
        self.conns = []  # every BleConn the stack holds: slots (link set) and the lobby
        self.hub = None
        self.spawn = None  # starts a slot's link task (asyncio.create_task; tests step links)
        self.secrets = {}
        self._passkey = None  # (conn, action) waiting for the task
        self._advertising = False
        self.adv_us = _ADV_INTERVAL_US  # idle mode raises it (advertise_every)
        self.evicted = 0  # slot holders pushed out for a newcomer (tests, docs/protocol.md)
        b = self.ble
        b.active(True)
        b.config(gap_name=name, mtu=_PREFERRED_MTU)
        try:
            b.config(bond=True, mitm=True, le_secure=True, io=_IO_CAPABILITY_DISPLAY_ONLY)
        except (ValueError, OSError):  # a port without pairing support: protocol auth remains
            pass
        b.irq(self._irq)
        self.service_uuid = bluetooth.UUID(SERVICE_UUID)
        svc = (
            self.service_uuid,
            (
                (
                    bluetooth.UUID(RX_UUID),
                    bluetooth.FLAG_WRITE | bluetooth.FLAG_WRITE_NO_RESPONSE | _FLAG_WRITE_ENCRYPTED,
                ),
                (bluetooth.UUID(TX_UUID), bluetooth.FLAG_NOTIFY),
            ),
        )
        ((self.h_rx, self.h_tx),) = b.gatts_register_services((svc,))
        # append mode: a write is read out in the IRQ, before another connection's lands
        b.gatts_set_buffer(self.h_rx, _RX_BUFFER, True)
        self.advertise()

    def _find(self, handle):
        for c in self.conns:
            if c.handle == handle:
                return c
        return None

    # -- IRQ: record and flag (and take each write out of the shared RX value)
    def _irq(self, event, data):
        if event == _IRQ_GATTS_WRITE:
            c = self._find(data[0])
            if c is not None and data[1] == self.h_rx:
                b = self.ble.gatts_read(self.h_rx)
                if len(c.rx) < _RX_CHUNKS:
                    c.rx.append(b)
                else:  # a flood faster than the link parses: cut off, never our heap
                    c.rx = []
                    self.ble.gap_disconnect(c.handle)
                if c.nrx <= _FIRST:
                    c.nrx += len(b)
                self.flag.set()
        elif event == _IRQ_CENTRAL_CONNECT:
            self._advertising = False  # the stack stops advertising on a connection
            self.conns.append(BleConn(self, data[0]))
            self.flag.set()
        elif event == _IRQ_CENTRAL_DISCONNECT:
            c = self._find(data[0])
            if c is not None:
                c.up = False
                c.encrypted = False
                c.wake()
            self.flag.set()
        elif event == _IRQ_MTU_EXCHANGED:
            c = self._find(data[0])
            if c is not None:
                c.mtu = data[1]
            self.flag.set()
        elif event == _IRQ_ENCRYPTION_UPDATE:  # (conn, encrypted, authenticated, bonded, key size)
            c = self._find(data[0])
            if c is not None:
                c.encrypted = bool(data[1])
            self.flag.set()
        elif event == _IRQ_PASSKEY_ACTION:
            c = self._find(data[0])
            if c is not None:
                c.passkey = True
            self._passkey = (data[0], data[1])
            self.flag.set()
        elif event == _IRQ_GET_SECRET:
            sec_type, index, key = data
            if key is None:
                i = 0
                for (t, _k), v in self.secrets.items():
                    if t == sec_type:
                        if i == index:
                            return v
                        i += 1
                return None
            return self.secrets.get((sec_type, bytes(key)))
        elif event == _IRQ_SET_SECRET:
            sec_type, key, value = data
            k = (sec_type, bytes(key))
            if value is None:
                self.secrets.pop(k, None)
            else:
                self.secrets[k] = bytes(value)
            return True
        return None

    # -- work done in the task
    def advertise(self):
        self.ble.gap_advertise(
            self.adv_us, advertising_payload(SERVICE_UUID), resp_data=scan_response(self.name)
        )
        self._advertising = True

    def advertise_every(self, ms):
        """The advertising interval (idle mode raises it, ``app.power``; 0: the normal one),
        applied at the task's next round."""
        us = ms * 1000 if ms else _ADV_INTERVAL_US
        if us != self.adv_us:
            self.adv_us = us
            self._advertising = False  # advertise again with the new interval
            self.flag.set()

    def forget_bonds(self):
        """The revoke-all gesture: every BLE bond goes (a central must pair again, passkey
        on the dice) and every central is disconnected."""
        self.secrets.clear()
        for c in self.conns[:]:
            if c.up:
                self.ble.gap_disconnect(c.handle)

    def rename(self, name):
        """New advertised name (after a RENAME request)."""
        self.name = name
        self.ble.config(gap_name=name)
        self._advertising = False
        self.flag.set()

    def slots(self):
        """The connections that have a slot (a link and, once encrypted, a session)."""
        return [c for c in self.conns if c.link is not None]

    def _admit(self, hub, c):
        c.link = link = hub.add(c)
        if self.spawn is not None:
            c.task = self.spawn(link.run())
        c.wake()

    def _release(self, c):
        """Forget connection ``c``: its link and session go (it is disconnected or leaving)."""
        c.up = False
        c.encrypted = False
        link = c.link
        hub = self.hub
        if link is not None and hub is not None:
            hub.remove(link)
            if link.session is not None:  # its task may not run again to close it
                link.session.close()
                link.session = None
            c.link = None
        if c.task is not None:
            c.task.cancel()
            c.task = None
        c.rx = []
        for i in range(len(self.conns)):
            if self.conns[i] is c:
                del self.conns[i]
                break

    def _kick(self, c):
        self._release(c)
        self.ble.gap_disconnect(c.handle)

    def _victim(self, board, claim):
        """The slot holder a newcomer may push out, or None: the oldest one that is not logged
        in, pairing or proving a paired host's key; for a newcomer that claims nothing, only one
        that had its slot ``GRACE_MS``."""
        best = None
        for c in self.conns:
            if c.link is None:
                continue
            s = c.link.session
            if s is not None and s.claimed():
                continue
            if not claim and board.within(c.since, GRACE_MS):
                continue
            if best is None or board.elapsed(c.since) > board.elapsed(best.since):
                best = c
        return best

    def _claim(self, board, c):
        """What lobby newcomer ``c``'s first writes claim (``app.link.claim``)."""
        if not c.encrypted or not c.rx or c.nrx > _FIRST:
            return 0
        buf = b"".join(c.rx)
        c.rx = [buf]
        return claim(board, buf)

    def service(self):
        """One round of the serve task: forget ended connections, seat newcomers (evicting
        for them as the module says), enforce the encryption deadline, show a passkey, and
        advertise while the stack has room."""
        hub = self.hub
        if hub is None:  # not serving yet
            return
        board = hub.board
        now = board.clock.ticks_ms()
        taken = 0
        for c in self.conns[:]:
            if not c.up:
                self._release(c)
                continue
            if c.since is None:
                c.since = now
            if c.link is not None:
                taken += 1
                if not c.encrypted and not board.within(c.since, PASSKEY_MS if c.passkey else ENCRYPT_MS):
                    self._kick(c)  # a central that never bonds frees its slot
                    taken -= 1
                elif c.rx:
                    c.wake()
        for c in self.conns[:]:
            if c.link is not None or not c.up:
                continue
            if taken < MAX_SLOTS:
                self._admit(hub, c)
                taken += 1
                continue
            claim = self._claim(board, c)
            v = self._victim(board, claim)
            if v is not None:
                self.evicted += 1
                self._kick(v)
                self._admit(hub, c)
            elif c.nrx > _FIRST or not board.within(c.since, LOBBY_MS):
                self._kick(c)  # no slot for it: the central may try again
        pk = self._passkey
        if pk is not None:
            self._passkey = None
            if pk[1] == _PASSKEY_ACTION_DISP and self.urandom is not None:
                from bg.link.crypto import code_from_random

                code = code_from_random(self.urandom)
                if self.show_code:
                    self.show_code(code)
                self.ble.gap_passkey(pk[0], pk[1], int(code))
        if not self._advertising and len(self.conns) < STACK_CONNS:
            self.advertise()

    async def serve(self, hub):
        """The radio's task: each slot's link runs as its own task (``Link.run``)."""
        self.hub = hub
        self.spawn = asyncio.create_task
        while True:
            await self.wait(_TICK_MS)
            try:
                self.service()
            except MemoryError:
                # a crowd churned the heap: the newest connection goes (the central retries),
                # never the board's task
                if self.conns:
                    self._kick(self.conns[-1])
