"""A fake of the parts of bleak (https://bleak.readthedocs.io, 0.22+) that ``gammon`` uses.

Test-only: put ``tests/fakes_host`` on ``sys.path`` (``monkeypatch.syspath_prepend``) and drop
any cached ``bleak`` from ``sys.modules``. Never installed; the real bleak is what users run.

Documented behaviour it keeps:

- ``BleakScanner.discover(timeout=5.0, return_adv=False, service_uuids=None)`` listens for
  ``timeout`` seconds and returns ``[BLEDevice]``, or with ``return_adv=True`` a dict
  ``{address: (BLEDevice, AdvertisementData)}``; ``service_uuids`` keeps only advertisements
  that contain one of those UUIDs. ``find_device_by_address(address, timeout=10.0)`` returns
  a ``BLEDevice`` or ``None``. Only advertising devices are seen (a connected peripheral
  stops advertising).
- ``BleakClient(address_or_ble_device, disconnected_callback=None, *, timeout=10.0)``, also
  an async context manager; ``connect()`` (``BleakDeviceNotFoundError`` when nothing
  advertises that address), ``disconnect()``, ``is_connected``, ``address``, ``mtu_size``
  (the ATT MTU both sides agreed: the smaller of the central's 517 and the peripheral's;
  23 with ``_BLUEZ_MTU_QUIRK``, as bleak's BlueZ backend reports),
  ``services.get_characteristic(uuid)`` (``None`` if absent; the characteristic has
  ``uuid``, ``properties`` and ``max_write_without_response_size`` = MTU - 3),
  ``start_notify(char, callback)`` with ``callback(sender: BleakGATTCharacteristic, data:
  bytearray)`` (a plain function or a coroutine function) run on the client's event loop,
  ``stop_notify``, ``write_gatt_char(char, data, response=None)``. Every GATT call on a
  link that is down raises ``BleakError``; ``disconnected_callback(client)`` runs on the
  loop whenever the link ends (either side).
- ``pair()`` (bleak's ``BleakClient.pair(*args, **kwargs) -> bool``, LE Secure Connections
  bonding through the OS: its agent shows the passkey dialog): the link is encrypted and the
  peripheral keeps the bond. A write to a characteristic the peripheral protects before that
  raises ``BleakError`` with the ATT error "Insufficient Encryption" (see ``bleak._air``).
- A write longer than MTU - 3 raises ``BleakError``: the board's protocol documents that
  each write carries at most MTU - 3 bytes (docs/protocol.md), so the fake holds the host to
  it. Notifications to a characteristic nobody subscribed to are lost, as on air.

The radio is ``bleak._air``: tests put ``Peripheral`` objects "in range" with
``_air.add(p)`` and remove them with ``_air.clear()``.
"""

import asyncio
import inspect

from bleak import _air
from bleak.exc import BleakDeviceNotFoundError, BleakError

__all__ = [
    "AdvertisementData",
    "BLEDevice",
    "BleakClient",
    "BleakError",
    "BleakGATTCharacteristic",
    "BleakScanner",
]

CENTRAL_MTU = 517  # what BlueZ/WinRT/CoreBluetooth ask for; the peripheral may accept less
# BlueZ's backend cannot read the negotiated MTU: ``mtu_size`` stays 23 while the
# characteristic's ``max_write_without_response_size`` is right (bleak issue #738). Tests
# set this to model a Linux host.
_BLUEZ_MTU_QUIRK = False
_CENTRAL_IDENTITY = "host-adapter"  # this computer's Bluetooth identity (what a bond is for)


class BLEDevice:
    """``bleak.backends.device.BLEDevice``: ``address``, ``name``, ``details``."""

    def __init__(self, address, name, details=None):
        self.address = address
        self.name = name
        self.details = details

    def __repr__(self):
        return "BLEDevice(%s, %s)" % (self.address, self.name)


class AdvertisementData:
    """``bleak.backends.scanner.AdvertisementData`` (advertisement + scan response merged)."""

    def __init__(self, local_name, service_uuids, rssi, manufacturer_data=None, tx_power=None):
        self.local_name = local_name
        self.service_uuids = list(service_uuids)
        self.rssi = rssi
        self.manufacturer_data = manufacturer_data or {}
        self.service_data = {}
        self.tx_power = tx_power
        self.platform_data = ()


class BleakGATTCharacteristic:
    """``bleak.backends.characteristic.BleakGATTCharacteristic`` (what the fake needs)."""

    def __init__(self, uuid, properties, client):
        self.uuid = uuid
        self.properties = list(properties)
        self._client = client

    @property
    def max_write_without_response_size(self):
        return self._client._mtu - 3

    def __repr__(self):
        return "BleakGATTCharacteristic(%s, %s)" % (self.uuid, self.properties)


class BleakGATTServiceCollection:
    """``client.services``: ``get_characteristic(uuid)`` -> characteristic or ``None``."""

    def __init__(self, chars):
        self.characteristics = chars

    def get_characteristic(self, specifier):
        if isinstance(specifier, BleakGATTCharacteristic):
            return specifier
        return self.characteristics.get(str(specifier).lower())


def _advertising(service_uuids):
    want = [u.lower() for u in service_uuids or ()]
    for p in _air.in_range():
        if not p.advertising():
            continue
        if want and not any(u.lower() in want for u in p.service_uuids):
            continue
        yield p


def _device(p):
    return BLEDevice(p.address, p.name, details={"fake": True}), AdvertisementData(
        p.name, p.service_uuids, p.rssi
    )


class BleakScanner:
    """``bleak.BleakScanner``: only the class methods gammon calls."""

    @classmethod
    async def discover(cls, timeout=5.0, *, return_adv=False, service_uuids=None, **kwargs):
        await asyncio.sleep(timeout)  # a real scan listens for the whole timeout
        found = {p.address: _device(p) for p in _advertising(service_uuids)}
        if return_adv:
            return found
        return [d for d, _ in found.values()]

    @classmethod
    async def find_device_by_address(cls, device_identifier, timeout=10.0, **kwargs):
        await asyncio.sleep(0)
        for p in _advertising(None):
            if p.address.lower() == str(device_identifier).lower():
                return _device(p)[0]
        return None


class BleakClient:
    """``bleak.BleakClient`` to one fake peripheral."""

    def __init__(
        self, address_or_ble_device, disconnected_callback=None, services=None, *, timeout=10.0, **kwargs
    ):
        if isinstance(address_or_ble_device, BLEDevice):
            address_or_ble_device = address_or_ble_device.address
        self._address = str(address_or_ble_device)
        self._disconnected_callback = disconnected_callback
        self._timeout = timeout
        self._peer = None
        self._loop = None
        self._mtu = 23
        self._services = None
        self._subscribed = {}

    def __repr__(self):
        return "BleakClient(%s)" % self._address

    async def __aenter__(self):
        await self.connect()
        return self

    async def __aexit__(self, *exc):
        await self.disconnect()

    @property
    def address(self):
        return self._address

    @property
    def is_connected(self):
        return self._peer is not None

    @property
    def mtu_size(self):
        return 23 if _BLUEZ_MTU_QUIRK else self._mtu

    @property
    def services(self):
        if self._services is None:
            raise BleakError("Service Discovery has not been performed yet")
        return self._services

    async def connect(self, **kwargs):
        if self._peer is not None:
            return True
        dev = await BleakScanner.find_device_by_address(self._address, self._timeout)
        if dev is None:
            msg = "Device with address %s was not found." % self._address
            raise BleakDeviceNotFoundError(self._address, msg)
        p = _air.find(self._address)
        self._loop = asyncio.get_running_loop()
        self._mtu = min(CENTRAL_MTU, p.preferred_mtu)
        chars = {
            u.lower(): BleakGATTCharacteristic(u.lower(), pr, self) for u, pr in p.characteristics.items()
        }
        self._services = BleakGATTServiceCollection(chars)
        self._subscribed = {}
        self._peer = p
        p._central_connected(self, self._mtu)
        return True

    async def disconnect(self):
        p = self._peer
        if p is not None:
            p._central_disconnected(self)
            self._link_down()
        return True

    def _link_down(self):
        """The link ended (called on the client's loop)."""
        if self._peer is None:
            return
        self._peer = None
        self._subscribed = {}
        if self._disconnected_callback is not None:
            self._disconnected_callback(self)

    def _char(self, specifier, prop):
        if self._peer is None:
            raise BleakError("Not connected")
        ch = self.services.get_characteristic(specifier)
        if ch is None:
            raise BleakError("Characteristic %s was not found!" % specifier)
        if not any(q in ch.properties for q in prop):
            raise BleakError("Characteristic %s does not support %s" % (ch.uuid, "/".join(prop)))
        return ch

    async def start_notify(self, char_specifier, callback, **kwargs):
        ch = self._char(char_specifier, ("notify", "indicate"))
        self._subscribed[ch.uuid] = (ch, callback)
        await asyncio.sleep(0)  # the CCCD write

    async def stop_notify(self, char_specifier):
        ch = self._char(char_specifier, ("notify", "indicate"))
        self._subscribed.pop(ch.uuid, None)
        await asyncio.sleep(0)

    async def pair(self, *args, **kwargs):
        if self._peer is None:
            raise BleakError("Not connected")
        await asyncio.sleep(0)  # the SMP exchange
        if not self._peer._central_paired(self, _CENTRAL_IDENTITY):
            raise BleakError("Not connected")
        return True

    async def write_gatt_char(self, char_specifier, data, response=None):
        want = ("write",) if response else ("write-without-response", "write")
        ch = self._char(char_specifier, want)
        data = bytes(data)
        if len(data) > self._mtu - 3:
            raise BleakError("write of %d bytes exceeds MTU - 3 = %d" % (len(data), self._mtu - 3))
        await asyncio.sleep(0)  # on air
        p = self._peer
        ok = None if p is None else p._central_wrote(self, ch.uuid, data)
        if ok is None and p is not None:
            raise BleakError("ATT error: 0x0f (Insufficient Encryption)")
        if not ok:
            raise BleakError("Not connected")

    # -- called by the peripheral, from any thread
    def _notify(self, uuid, data):
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(self._deliver, uuid, bytearray(data))

    def _deliver(self, uuid, data):
        sub = self._subscribed.get(uuid)
        if sub is None or self._peer is None:
            return
        ch, cb = sub
        r = cb(ch, data)
        if inspect.isawaitable(r):
            asyncio.ensure_future(r)

    def _dropped(self):
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._link_down)
