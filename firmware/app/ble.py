"""BLE transport: a GATT peripheral on MicroPython's ``bluetooth`` module.

One primary service with two characteristics (128-bit UUIDs, see docs/protocol.md):

- ``RX`` (write, write-without-response): the host writes request bytes, at most MTU - 3 per
  write; the stream may split a frame over several writes;
- ``TX`` (notify): the board notifies response/event/data bytes, at most MTU - 3 each.

The IRQ handler only records what happened (connection handle, MTU, a pending passkey
request) and sets a flag; the link task does the work. The one exception is the bond store:
``_IRQ_GET_SECRET``/``_IRQ_SET_SECRET`` must answer synchronously, so they read/write a dict.

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
    asyncio.create_task(hub.add(t).run())
"""

import asyncio
import struct

import bluetooth
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
    """The ``wait``/``wake`` half of a transport woken from an IRQ (BLE): an IRQ-safe flag
    with a timeout. Each ``ThreadSafeFlag`` is polled like a file; on the unix port
    ``select.poll`` corrupts such fd-less entries once its array grows (a segfault with a
    few of them), so stream transports, woken only by tasks, use ``TaskWaker``."""

    def __init__(self):
        self.flag = asyncio.ThreadSafeFlag()

    def wake(self):
        self.flag.set()

    async def wait(self, ms):
        try:
            await asyncio.wait_for_ms(self.flag.wait(), ms)
        except asyncio.TimeoutError:
            pass


class BleTransport(Waker):
    """The ``app.link`` transport over a GATT peripheral (one central at a time)."""

    def __init__(self, name="Gammon", show_code=None, urandom=None, ble=None):
        super().__init__()
        self.name = name
        self.show_code = show_code
        self.urandom = urandom
        self.ble = ble if ble is not None else bluetooth.BLE()
        self.conn = None
        self.mtu = 23
        self.encrypted = False
        self.secrets = {}
        self._passkey = None  # (conn, action) waiting for the task
        self._restart_adv = True
        self.adv_us = _ADV_INTERVAL_US  # idle mode raises it (advertise_every)
        self._writes = 0
        b = self.ble
        b.active(True)
        b.config(gap_name=name, mtu=_PREFERRED_MTU)
        try:
            b.config(bond=True, mitm=True, le_secure=True, io=_IO_CAPABILITY_DISPLAY_ONLY)
        except (ValueError, OSError):  # a port without pairing support: protocol auth remains
            pass
        b.irq(self._irq)
        self.service = bluetooth.UUID(SERVICE_UUID)
        svc = (
            self.service,
            (
                (
                    bluetooth.UUID(RX_UUID),
                    bluetooth.FLAG_WRITE | bluetooth.FLAG_WRITE_NO_RESPONSE | _FLAG_WRITE_ENCRYPTED,
                ),
                (bluetooth.UUID(TX_UUID), bluetooth.FLAG_NOTIFY),
            ),
        )
        ((self.h_rx, self.h_tx),) = b.gatts_register_services((svc,))
        # append mode: several writes between two reads are kept, gatts_read clears them
        b.gatts_set_buffer(self.h_rx, _RX_BUFFER, True)
        self.advertise()

    # -- IRQ: record and flag only
    def _irq(self, event, data):
        if event == _IRQ_GATTS_WRITE:
            if data[1] == self.h_rx:
                self._writes += 1
                self.flag.set()
        elif event == _IRQ_CENTRAL_CONNECT:
            if self.conn is None:
                self.conn = data[0]
                self.mtu = 23
            self.flag.set()
        elif event == _IRQ_CENTRAL_DISCONNECT:
            if data[0] == self.conn:
                self.conn = None
                self.encrypted = False
                self._restart_adv = True
            self.flag.set()
        elif event == _IRQ_MTU_EXCHANGED:
            if data[0] == self.conn:
                self.mtu = data[1]
            self.flag.set()
        elif event == _IRQ_ENCRYPTION_UPDATE:  # (conn, encrypted, authenticated, bonded, key size)
            if data[0] == self.conn:
                self.encrypted = bool(data[1])
            self.flag.set()
        elif event == _IRQ_PASSKEY_ACTION:
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
        self._restart_adv = False

    def advertise_every(self, ms):
        """The advertising interval (idle mode raises it, ``app.power``; 0: the normal one),
        applied at once when no central is connected."""
        us = ms * 1000 if ms else _ADV_INTERVAL_US
        if us != self.adv_us:
            self.adv_us = us
            if self.conn is None:
                self._restart_adv = True
                self.flag.set()  # the task applies it

    def forget_bonds(self):
        """The revoke-all gesture: every BLE bond goes (a central must pair again, passkey
        on the dice) and the current central is disconnected."""
        self.secrets.clear()
        if self.conn is not None:
            self.ble.gap_disconnect(self.conn)

    def rename(self, name):
        """New advertised name (after a RENAME request)."""
        self.name = name
        self.ble.config(gap_name=name)
        if self.conn is None:
            self.advertise()

    def _service(self):
        if self._restart_adv and self.conn is None:
            self.advertise()
        pk = self._passkey
        if pk is not None:
            self._passkey = None
            if pk[1] == _PASSKEY_ACTION_DISP and self.urandom is not None:
                from bg.link.crypto import code_from_random

                code = code_from_random(self.urandom)
                if self.show_code:
                    self.show_code(code)
                self.ble.gap_passkey(pk[0], pk[1], int(code))

    def drop(self):
        """Disconnect the central (the board dropped an unauthenticated host)."""
        conn = self.conn
        if conn is not None:
            self.ble.gap_disconnect(conn)

    def read(self):
        self._service()
        if self.conn is None or not self._writes or not self.encrypted:
            return None
        self._writes = 0
        data = self.ble.gatts_read(self.h_rx)
        return data if data else None

    async def send(self, frame):
        """Notify ``frame`` in pieces of MTU - 3 bytes; a full controller queue (OSError) is
        retried after a short sleep, so a slow central slows the link, not the game. Nothing
        is sent on a link that is not encrypted."""
        n = self.mtu - 3
        i = 0
        tries = 0
        while i < len(frame):
            conn = self.conn
            if conn is None or not self.encrypted:  # never in clear on the air
                return
            try:
                # the ESP32 stub lists two arguments; the documented call is
                # gatts_notify(conn_handle, value_handle, data)
                self.ble.gatts_notify(conn, self.h_tx, frame[i : i + n])
            except OSError:
                tries += 1
                if tries > 200:  # ~2 s without progress: give up on this connection
                    self.ble.gap_disconnect(conn)
                    return
                await asyncio.sleep_ms(10)
                continue
            tries = 0
            i += n
            await asyncio.sleep_ms(0)
