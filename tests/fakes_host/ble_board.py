"""The board's side of BLE for the host tests: the real portable protocol (``bg.link.board``,
``bg.link.session``, ``bg.link.requests``) behind a fake-bleak ``Peripheral``, sending exactly as
the firmware's ``app/ble.py`` + ``app/link.py`` do:

- advertises the service UUID and the board's name; one central at a time;
- a new connection gets a new ``Session`` at the negotiated MTU (``Link._switch`` and
  ``set_mtu``); a disconnect closes it (a pairing it started is cancelled);
- bytes written to RX are fed to the session; every frame ``pump()`` yields is notified on TX
  in pieces of at most MTU - 3 bytes (``BleTransport.send``); when the link breaks in the
  middle, the rest is not sent;
- ``publish(record)`` is ``Hub.publish``: queue a confirmed action for watching hosts and
  send it at once;
- the link is encrypted on the air: RX writes before the central bonded are refused by the
  "stack" (``bleak._air``), and nothing is notified until the link is encrypted.

Test hooks: ``codes`` (what ``show_code`` displayed), ``drop_after`` (break the link after
that many more notifications), ``connections``.

Example::

    board = BoardPeripheral("AA:BB:CC:DD:EE:01", store)
    _air.add(board)     # now BleakScanner sees it and BleakClient can connect
"""

import os
import time

from bg.link.board import Board
from bg.link.session import Session
from bg.serialwire import BLE_RX_UUID as RX_UUID  # noqa: E402 - the firmware's (app/ble.py)
from bg.serialwire import BLE_SERVICE_UUID as SERVICE_UUID  # noqa: E402
from bg.serialwire import BLE_TX_UUID as TX_UUID  # noqa: E402
from bleak import _air

PREFERRED_MTU = 247  # app/ble.py _PREFERRED_MTU


class Clock:
    """The board's ``hal`` clock on the host: monotonic ticks, settable wall time."""

    def __init__(self):
        self.offset = 0

    def ticks_ms(self):
        return int(time.monotonic() * 1000)

    def ticks_diff(self, a, b):
        return a - b

    def unix_time(self):
        return int(time.time()) + self.offset

    def set_unix_time(self, t):
        self.offset = t - int(time.time())


class BoardPeripheral(_air.Peripheral):
    def __init__(self, address, store, rssi=-52, preferred_mtu=PREFERRED_MTU, urandom=os.urandom):
        super().__init__(
            address,
            store.get_name(),
            service_uuids=[SERVICE_UUID],
            rssi=rssi,
            characteristics={
                RX_UUID: ["write-without-response", "write"],
                TX_UUID: ["notify"],
            },
            preferred_mtu=preferred_mtu,
            encrypted=[RX_UUID],  # app/ble.py: RX registered with _FLAG_WRITE_ENCRYPTED
        )
        self.codes = []
        self.clock = Clock()
        self.board = Board(store, self.clock, urandom, show_code=self._show, on_rename=self._rename)
        self.board.open_pairing(600000)
        self.session = None
        self.drop_after = None
        self.connections = 0

    def _show(self, code):
        if code is not None:
            self.codes.append(code)

    def _rename(self, name):
        self.name = name  # BleTransport.rename: the new name is advertised

    # -- the link (app/link.py Link.step over app/ble.py BleTransport)
    def on_connect(self, mtu):
        self.connections += 1
        self.session = Session(self.board, mtu)

    def on_disconnect(self):
        if self.session is not None:
            self.session.close()
            self.session = None

    def on_write(self, uuid, data):
        if uuid != RX_UUID or self.session is None:
            return
        self.session.feed(data)
        if self.board.awaiting_button():  # the owner checks the number and presses ROLL
            self.board.confirm_pairing()
            self.board.open_pairing(600000)
        self._pump()

    def publish(self, record):
        """``Hub.publish``: queue for watching hosts, then let the link send."""
        with self.lock:
            self.board.publish(record)
            self._pump()

    def _pump(self):
        s = self.session
        if s is None or not self.link_encrypted:  # app/ble.py notifies nothing in clear
            return
        s.set_mtu(self.mtu)
        f = s.pump()
        while f is not None:
            n = self.mtu - 3
            for i in range(0, len(f), n):
                if self.drop_after is not None:
                    if self.drop_after <= 0:
                        self.drop_after = None
                        self.drop()
                        return
                    self.drop_after -= 1
                if not self.notify(TX_UUID, f[i : i + n]):
                    return
            f = s.pump()
