"""The fake radio behind the fake bleak: which peripherals are in range (test hook, not bleak).

A ``Peripheral`` advertises ``name``, ``service_uuids`` and ``rssi`` at ``address`` while no
central is connected (one connection at a time, like the board), offers ``characteristics``
``{uuid: [properties]}``, and accepts ATT MTU ``preferred_mtu``. Subclasses override
``on_connect(mtu)``, ``on_write(uuid, data)`` and ``on_disconnect()`` (called with the
peripheral's lock held) and call ``notify(uuid, data)`` / ``drop()``.
"""

import threading

_IN_RANGE = []


def add(p):
    _IN_RANGE.append(p)
    return p


def clear():
    del _IN_RANGE[:]


def in_range():
    return list(_IN_RANGE)


def find(address):
    for p in _IN_RANGE:
        if p.address.lower() == address.lower():
            return p
    return None


class Peripheral:
    def __init__(self, address, name, service_uuids=(), rssi=-60, characteristics=None, preferred_mtu=247):
        self.address = address
        self.name = name
        self.service_uuids = list(service_uuids)
        self.rssi = rssi
        self.characteristics = dict(characteristics or {})
        self.preferred_mtu = preferred_mtu
        self.lock = threading.RLock()
        self.central = None
        self.mtu = 23
        self.notified = []  # payloads of every notification sent (all connections)

    def advertising(self):
        return self.central is None

    # -- hooks for subclasses
    def on_connect(self, mtu):
        pass

    def on_write(self, uuid, data):
        pass

    def on_disconnect(self):
        pass

    # -- the peripheral acts
    def notify(self, uuid, data):
        """Send one notification (at most MTU - 3 bytes) to the connected central."""
        if self.central is None:
            return False
        if len(data) > self.mtu - 3:
            raise ValueError("notification of %d bytes exceeds MTU - 3 = %d" % (len(data), self.mtu - 3))
        self.notified.append(bytes(data))
        self.central._notify(uuid, data)
        return True

    def drop(self):
        """The link breaks (out of range, reset): both sides see a disconnect."""
        with self.lock:
            c = self.central
            if c is None:
                return
            self.central = None
            self.on_disconnect()
        c._dropped()

    # -- called by the fake BleakClient
    def _central_connected(self, client, mtu):
        with self.lock:
            self.central = client
            self.mtu = mtu
            self.on_connect(mtu)

    def _central_disconnected(self, client):
        with self.lock:
            if self.central is client:
                self.central = None
                self.on_disconnect()

    def _central_wrote(self, client, uuid, data):
        with self.lock:
            if self.central is not client:
                return False
            self.on_write(uuid, data)
            return True
