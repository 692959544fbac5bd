"""A fake of MicroPython's ``bluetooth`` module for tests on the unix port.

Written to the documented API (docs.micropython.org/en/latest/library/bluetooth.html): the
``BLE`` singleton, ``active``, ``config``, ``irq``, ``gap_advertise``, ``gap_disconnect``,
``gap_passkey``, ``gatts_register_services`` (returns value handles), ``gatts_read`` /
``gatts_write`` / ``gatts_notify`` / ``gatts_set_buffer`` (append mode clears on read),
``UUID`` and the ``FLAG_*`` constants. IRQ event numbers are the documented ones.

Test hooks (names start with ``_``) play the central: ``_connect()``, ``_write(handle, data)``,
``_exchange_mtu(mtu)``, ``_disconnect()``, ``_pair()`` (LE pairing: the link becomes
encrypted; a write to a characteristic registered with ``FLAG_WRITE_ENCRYPTED`` before that
is refused with ``OSError(0x0F)``, the ATT error the central gets, and the peripheral sees
nothing, as NimBLE does) and ``notified`` (the list of
``(conn_handle, value_handle, bytes)`` the peripheral sent). The IRQ handler is called
synchronously from the hooks, as the port's scheduler would run it. ``notify_capacity``
models the controller's buffer: when set, more notifications than that without
``_air()`` raise ``OSError`` like a full NimBLE queue.
"""

_IRQ_CENTRAL_CONNECT = 1
_IRQ_CENTRAL_DISCONNECT = 2
_IRQ_GATTS_WRITE = 3
_IRQ_GATTS_READ_REQUEST = 4
_IRQ_MTU_EXCHANGED = 21
_IRQ_ENCRYPTION_UPDATE = 28
_IRQ_GET_SECRET = 29
_IRQ_SET_SECRET = 30
_IRQ_PASSKEY_ACTION = 31

FLAG_BROADCAST = 0x0001
FLAG_READ = 0x0002
FLAG_WRITE_NO_RESPONSE = 0x0004
FLAG_WRITE = 0x0008
FLAG_NOTIFY = 0x0010
FLAG_INDICATE = 0x0020
FLAG_AUTHENTICATED_SIGNED_WRITE = 0x0040
FLAG_AUX_WRITE = 0x0100
FLAG_READ_ENCRYPTED = 0x0200
FLAG_READ_AUTHENTICATED = 0x0400
FLAG_READ_AUTHORIZED = 0x0800
FLAG_WRITE_ENCRYPTED = 0x1000
FLAG_WRITE_AUTHENTICATED = 0x2000
FLAG_WRITE_AUTHORIZED = 0x4000

_PASSKEY_ACTION_DISP = 3
_DEFAULT_MTU = 23


def _hexval(c):
    return int(c, 16)


class UUID:
    """``bluetooth.UUID(value)``: a 16-bit int or a 128-bit string/bytes."""

    def __init__(self, value):
        if isinstance(value, int):
            if not 0 <= value <= 0xFFFF:
                raise ValueError("invalid UUID")
            self._b = bytes([value & 0xFF, value >> 8])
        elif isinstance(value, str):
            h = value.replace("-", "")
            if len(h) != 32:
                raise ValueError("invalid UUID")
            big = bytes(int(h[i : i + 2], 16) for i in range(0, 32, 2))
            self._b = bytes(reversed(big))  # stored little-endian, like the port
        elif isinstance(value, (bytes, bytearray)) and len(value) in (2, 4, 16):
            self._b = bytes(value)
        else:
            raise ValueError("invalid UUID")

    def __bytes__(self):
        return self._b

    def __eq__(self, other):
        return isinstance(other, UUID) and other._b == self._b

    def __hash__(self):
        return hash(self._b)

    def __repr__(self):
        if len(self._b) == 2:
            return "UUID(0x%04x)" % (self._b[0] | (self._b[1] << 8))
        h = "".join("%02x" % x for x in reversed(self._b))
        return "UUID('%s-%s-%s-%s-%s')" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])


class _Value:
    def __init__(self, flags):
        self.flags = flags
        self.data = b""
        self.size = 20
        self.append = False


class BLE:
    """The singleton ``bluetooth.BLE()``."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = object.__new__(cls)
            cls._instance._reset()
        return cls._instance

    def __init__(self):
        pass

    def _reset(self):
        self._active = False
        self._irq = None
        self._cfg = {
            "gap_name": "MPY BTSTACK",
            "mtu": _DEFAULT_MTU,
            "rxbuf": 64,
            "bond": False,
            "mitm": False,
            "le_secure": False,
            "io": 3,
            "addr_mode": 0,
        }
        self._values = {}
        self._next_handle = 1
        self.services = []
        self.adv = None  # (interval_us, adv_data, resp_data, connectable)
        self.conn = None
        self.conn_mtu = _DEFAULT_MTU
        self.notified = []
        self.notify_capacity = None
        self._in_air = 0
        self.encrypted = False
        self.authenticated = False
        self.passkeys = []
        self.secrets = {}

    # -- configuration
    def active(self, *args):
        if args:
            self._active = bool(args[0])
            if not self._active:
                self.conn = None
                self.adv = None
        return self._active

    def config(self, *args, **kwargs):
        if args:
            if len(args) != 1 or kwargs:
                raise TypeError("config takes one name to get, or keywords to set")
            name = args[0]
            if name == "mac":
                return (0, b"\x24\x0a\xc4\x12\x34\x56")
            if name not in self._cfg:
                raise ValueError("unknown config param")
            return self._cfg[name]
        for k, v in kwargs.items():
            if k not in self._cfg:
                raise ValueError("unknown config param")
            if k == "mtu" and not 23 <= v <= 517:
                raise ValueError("bad MTU")
            self._cfg[k] = v
        return None

    def irq(self, handler):
        self._irq = handler

    def _need_active(self):
        if not self._active:
            raise OSError(5)  # EIO, as the port reports an inactive radio

    # -- GAP
    def gap_advertise(self, interval_us, adv_data=None, *, resp_data=None, connectable=True):
        self._need_active()
        if interval_us is None:
            self.adv = None
            return
        if adv_data is not None and len(adv_data) > 31:
            raise ValueError("advertising payload too long")
        if resp_data is not None and len(resp_data) > 31:
            raise ValueError("scan response too long")
        self.adv = (interval_us, bytes(adv_data or b""), bytes(resp_data or b""), connectable)

    def gap_disconnect(self, conn_handle):
        if self.conn != conn_handle:
            return False
        self._disconnect()
        return True

    def gap_passkey(self, conn_handle, action, passkey):
        self.passkeys.append((conn_handle, action, passkey))

    # -- GATT server
    def gatts_register_services(self, services_definition):
        self._need_active()
        handles = []
        self._values = {}
        self._next_handle = 1
        for service in services_definition:
            uuid, chars = service[0], service[1]
            if not isinstance(uuid, UUID):
                raise TypeError("service UUID must be a bluetooth.UUID")
            self._next_handle += 1  # service declaration
            hs = []
            for ch in chars:
                cuuid, flags = ch[0], ch[1]
                if not isinstance(cuuid, UUID):
                    raise TypeError("characteristic UUID must be a bluetooth.UUID")
                self._next_handle += 1  # characteristic declaration
                h = self._next_handle
                self._next_handle += 1
                self._values[h] = _Value(flags)
                hs.append(h)  # the value handle, then one per descriptor, as documented
                if flags & (FLAG_NOTIFY | FLAG_INDICATE):
                    self._next_handle += 1  # CCCD (not returned)
                for d in ch[2] if len(ch) > 2 else ():
                    self._values[self._next_handle] = _Value(d[1])
                    hs.append(self._next_handle)
                    self._next_handle += 1
            handles.append(tuple(hs))
            self.services.append(service)
        return tuple(handles)

    def _value(self, value_handle):
        v = self._values.get(value_handle)
        if v is None:
            raise OSError(22)  # EINVAL: unknown handle
        return v

    def gatts_read(self, value_handle):
        v = self._value(value_handle)
        data = v.data
        if v.append:
            v.data = b""
        return data

    def gatts_write(self, value_handle, data, send_update=False):
        v = self._value(value_handle)
        v.data = bytes(data)
        if send_update and self.conn is not None:
            self.gatts_notify(self.conn, value_handle)

    def gatts_notify(self, conn_handle, value_handle, data=None):
        v = self._value(value_handle)
        if conn_handle != self.conn:
            raise OSError(128)  # ENOTCONN
        if self.notify_capacity is not None and self._in_air >= self.notify_capacity:
            raise OSError(12)  # ENOMEM: the controller's queue is full
        payload = v.data if data is None else bytes(data)
        # the stack truncates to MTU - 3: record what actually goes on the air
        self.notified.append((conn_handle, value_handle, payload[: self.conn_mtu - 3]))
        self._in_air += 1

    def gatts_set_buffer(self, value_handle, length, append=False):
        v = self._value(value_handle)
        v.size = length
        v.append = append

    # -- test hooks: the central's side
    def _call(self, event, data):
        if self._irq is not None:
            return self._irq(event, data)
        return None

    def _connect(self, conn_handle=64, addr=b"\x11\x22\x33\x44\x55\x66"):
        self.conn = conn_handle
        self.conn_mtu = _DEFAULT_MTU
        self.adv = None  # advertising stops on connection
        self._call(_IRQ_CENTRAL_CONNECT, (conn_handle, 0, addr))

    def _exchange_mtu(self, mtu):
        self.conn_mtu = min(mtu, self._cfg["mtu"])
        self._call(_IRQ_MTU_EXCHANGED, (self.conn, self.conn_mtu))

    def _write(self, value_handle, data):
        """A central's write: at most MTU - 3 bytes per ATT write, buffered as configured."""
        if self.conn is None:
            raise OSError(128)
        data = bytes(data)
        if len(data) > self.conn_mtu - 3:
            raise ValueError("ATT write longer than MTU - 3")
        v = self._value(value_handle)
        if not v.flags & (FLAG_WRITE | FLAG_WRITE_NO_RESPONSE):
            raise OSError(3)  # write not permitted
        # The stack checks the characteristic's security before the application sees
        # anything (NimBLE's ble_att_svr access check): the central gets the ATT error
        # "insufficient encryption" (0x0F) / "insufficient authentication" (0x05), the
        # peripheral no _IRQ_GATTS_WRITE and no data in the value's buffer.
        if v.flags & FLAG_WRITE_ENCRYPTED and not self.encrypted:
            raise OSError(0x0F)
        if v.flags & FLAG_WRITE_AUTHENTICATED and not self.authenticated:
            raise OSError(0x05)
        if v.append:
            room = v.size - len(v.data)
            v.data = v.data + data[: max(room, 0)]
        else:
            v.data = data[: v.size]
        self._call(_IRQ_GATTS_WRITE, (self.conn, value_handle))

    def _air(self):
        """The connection event happened: the controller's queue is free again."""
        self._in_air = 0

    def _pair(self, mitm=True):
        """The central starts LE pairing: with a display-only board the stack asks for a
        passkey to show (``mitm``: passkey entry; else "just works", unauthenticated); then
        the link is encrypted and keys are stored via SET_SECRET."""
        if mitm:
            self._call(_IRQ_PASSKEY_ACTION, (self.conn, _PASSKEY_ACTION_DISP, 0))
        self._call(_IRQ_SET_SECRET, (1, b"peer-key", b"ltk-bytes"))
        self.encrypted = True
        self.authenticated = mitm
        self._call(_IRQ_ENCRYPTION_UPDATE, (self.conn, True, mitm, True, 16))

    def _encrypt(self):
        """A bonded central reconnects and starts encryption with the stored keys: the stack
        looks the bond up (_IRQ_GET_SECRET) and, when the peripheral has it, the link is
        encrypted without a new passkey. Returns False (link left in clear) without a bond."""
        if self._call(_IRQ_GET_SECRET, (1, 0, b"peer-key")) is None:
            return False
        self.encrypted = True
        self.authenticated = True
        self._call(_IRQ_ENCRYPTION_UPDATE, (self.conn, True, True, True, 16))
        return True

    def _get_secret(self, sec_type, key):
        return self._call(_IRQ_GET_SECRET, (sec_type, 0, key))

    def _disconnect(self):
        c = self.conn
        self.conn = None
        self.encrypted = False
        self.authenticated = False
        self._call(_IRQ_CENTRAL_DISCONNECT, (c, 0, b"\x11\x22\x33\x44\x55\x66"))
