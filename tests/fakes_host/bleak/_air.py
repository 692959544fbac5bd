"""The fake radio behind the fake bleak: which peripherals are in range (test hook, not bleak).

A ``Peripheral`` advertises ``name``, ``service_uuids`` and ``rssi`` at ``address`` while no
central is connected (one connection at a time, like the board), offers ``characteristics``
``{uuid: [properties]}``, and accepts ATT MTU ``preferred_mtu``. Subclasses override
``on_connect(mtu)``, ``on_write(uuid, data)`` and ``on_disconnect()`` (called with the
peripheral's lock held) and call ``notify(uuid, data)`` / ``drop()``.

Link-layer security: characteristics in ``encrypted`` need an encrypted link; a write to one
before the central bonded (``BleakClient.pair()``) is refused with the ATT error
"Insufficient Encryption" and the peripheral sees nothing, as a peripheral whose
characteristic is registered with ``_FLAG_WRITE_ENCRYPTED`` does (NimBLE checks before the
application). Assumption modelled: the central's OS does not bond by itself on that error
(BlueZ may retry with more security when an agent is around; macOS does; a host must not
count on it), so the host bonds explicitly. ``link_encrypted`` is the connection's state,
``bonds`` the centrals that bonded (a bonded central reconnects encrypted after ``pair()``
without a new passkey); ``on_encrypted()`` is the subclass's hook.
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
    def __init__(
        self, address, name, service_uuids=(), rssi=-60, characteristics=None, preferred_mtu=247, encrypted=()
    ):
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
        self.encrypted = set(u.lower() for u in encrypted)
        self.link_encrypted = False
        self.bonds = set()
        self.refused_writes = 0

    def advertising(self):
        return self.central is None

    # -- hooks for subclasses
    def on_connect(self, mtu):
        pass

    def on_write(self, uuid, data):
        pass

    def on_disconnect(self):
        pass

    def on_encrypted(self):
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
            self.link_encrypted = False
            self.on_disconnect()
        c._dropped()

    # -- called by the fake BleakClient
    def _central_connected(self, client, mtu):
        with self.lock:
            self.central = client
            self.mtu = mtu
            self.link_encrypted = False
            self.on_connect(mtu)

    def _central_paired(self, client, identity):
        """LE pairing (or, for a bonded central, encryption with the stored keys)."""
        with self.lock:
            if self.central is not client:
                return False
            self.bonds.add(identity)
            self.link_encrypted = True
            self.on_encrypted()
            return True

    def _central_disconnected(self, client):
        with self.lock:
            if self.central is client:
                self.central = None
                self.link_encrypted = False
                self.on_disconnect()

    def _central_wrote(self, client, uuid, data):
        with self.lock:
            if self.central is not client:
                return False
            if uuid in self.encrypted and not self.link_encrypted:
                self.refused_writes += 1
                return None  # ATT error 0x0F: insufficient encryption
            self.on_write(uuid, data)
            return True
