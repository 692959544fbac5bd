"""A fake of MicroPython's ``bluetooth`` module for tests on the unix port.

Written to the documented API (docs.micropython.org/en/latest/library/bluetooth.html): the
``BLE`` singleton, ``active``, ``config``, ``irq``, ``gap_advertise``, ``gap_disconnect``,
``gap_passkey``, ``gatts_register_services`` (returns value handles), ``gatts_read`` /
``gatts_write`` / ``gatts_notify`` / ``gatts_set_buffer`` (append mode clears on read),
``UUID`` and the ``FLAG_*`` constants. IRQ event numbers are the documented ones.

Several centrals at once, as NimBLE: at most ``max_conns`` connections
(``CONFIG_BT_NIMBLE_MAX_CONNECTIONS``, 4 in MicroPython's ESP32 ``sdkconfig.ble``); a central
can connect only while the peripheral advertises connectably and the stack has room, and
advertising stops on each connection (legacy advertising: the application starts it again).
The RX value is one buffer for every connection, as in the port (``gatts_read`` takes what
any central wrote).

Test hooks (names start with ``_``) play the centrals; each takes ``conn`` (default: the
newest connection, ``conn``): ``_connect()`` (returns the handle; ``OSError(116)``, the
central's connect timing out, when nobody could connect), ``_write(handle, data)``,
``_exchange_mtu(mtu)``, ``_disconnect()``, ``_pair()`` (LE pairing: the link becomes
encrypted; a write to a characteristic registered with ``FLAG_WRITE_ENCRYPTED`` before that
is refused with ``OSError(0x0F)``, the ATT error the central gets, and the peripheral sees
nothing, as NimBLE does), ``_encrypt()`` (a bonded central re-encrypts) and ``notified``
(the list of ``(conn_handle, value_handle, bytes)`` the peripheral sent). The IRQ handler is
called synchronously from the hooks, as ESP32's NimBLE build calls it from the host task.
``notify_capacity`` models the controller's buffer: when set, more notifications than that
on one connection without ``_air()`` raise ``OSError`` like a full NimBLE queue.
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
MAX_CONNECTIONS = 4  # CONFIG_BT_NIMBLE_MAX_CONNECTIONS in MicroPython's ESP32 sdkconfig.ble


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


class _Conn:
    """One central's link as the stack sees it."""

    def __init__(self, handle, addr):
        self.handle = handle
        self.addr = bytes(addr)
        self.mtu = _DEFAULT_MTU
        self.encrypted = False
        self.authenticated = False
        self.in_air = 0


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
        self.max_conns = MAX_CONNECTIONS
        self.conns = {}  # handle -> _Conn
        self.conn = None  # the newest connection still up (the hooks' default)
        self._next_conn = 64
        self.notified = []
        self.notify_capacity = None
        self.passkeys = []
        self.secrets = {}

    # -- the default connection's state (tests of one central)
    def _c(self, conn=None):
        c = self.conns.get(self.conn if conn is None else conn)
        if c is None:
            raise OSError(128)  # ENOTCONN
        return c

    @property
    def conn_mtu(self):
        c = self.conns.get(self.conn)
        return c.mtu if c is not None else _DEFAULT_MTU

    @property
    def encrypted(self):
        c = self.conns.get(self.conn)
        return c is not None and c.encrypted

    # -- configuration
    def active(self, *args):
        if args:
            self._active = bool(args[0])
            if not self._active:
                self.conns = {}
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
        """False when ``conn_handle`` is not connected (the documented return), else True."""
        if conn_handle not in self.conns:
            return False
        self._disconnect(conn_handle)
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
        if send_update:
            for h in list(self.conns):
                self.gatts_notify(h, value_handle)

    def gatts_notify(self, conn_handle, value_handle, data=None):
        v = self._value(value_handle)
        c = self.conns.get(conn_handle)
        if c is None:
            raise OSError(128)  # ENOTCONN
        if self.notify_capacity is not None and c.in_air >= self.notify_capacity:
            raise OSError(12)  # ENOMEM: the controller's queue is full
        payload = v.data if data is None else bytes(data)
        # the stack truncates to MTU - 3: record what actually goes on the air
        self.notified.append((conn_handle, value_handle, payload[: c.mtu - 3]))
        c.in_air += 1

    def gatts_set_buffer(self, value_handle, length, append=False):
        v = self._value(value_handle)
        v.size = length
        v.append = append

    # -- test hooks: the centrals' side
    def _call(self, event, data):
        if self._irq is not None:
            return self._irq(event, data)
        return None

    def _connect(self, conn_handle=None, addr=b"\x11\x22\x33\x44\x55\x66"):
        """A central connects: only to a connectable advertisement and while the stack has
        room (else ``OSError(116)``: its connect times out). Returns the handle."""
        if self.adv is None or not self.adv[3] or len(self.conns) >= self.max_conns:
            raise OSError(116)  # ETIMEDOUT: nothing to connect to
        if conn_handle is None or conn_handle in self.conns:
            while self._next_conn in self.conns:
                self._next_conn += 1
            conn_handle = self._next_conn
            self._next_conn += 1
        self.conns[conn_handle] = _Conn(conn_handle, addr)
        self.conn = conn_handle
        self.adv = None  # advertising stops on a connection
        self._call(_IRQ_CENTRAL_CONNECT, (conn_handle, 0, addr))
        return conn_handle

    def _exchange_mtu(self, mtu, conn=None):
        c = self._c(conn)
        c.mtu = min(mtu, self._cfg["mtu"])
        self._call(_IRQ_MTU_EXCHANGED, (c.handle, c.mtu))

    def _write(self, value_handle, data, conn=None):
        """A central's write: at most MTU - 3 bytes per ATT write, buffered as configured."""
        c = self._c(conn)
        data = bytes(data)
        if len(data) > c.mtu - 3:
            raise ValueError("ATT write longer than MTU - 3")
        v = self._value(value_handle)
        if not v.flags & (FLAG_WRITE | FLAG_WRITE_NO_RESPONSE):
            raise OSError(3)  # write not permitted
        # The stack checks the characteristic's security before the application sees
        # anything (NimBLE's ble_att_svr access check): the central gets the ATT error
        # "insufficient encryption" (0x0F) / "insufficient authentication" (0x05), the
        # peripheral no _IRQ_GATTS_WRITE and no data in the value's buffer.
        if v.flags & FLAG_WRITE_ENCRYPTED and not c.encrypted:
            raise OSError(0x0F)
        if v.flags & FLAG_WRITE_AUTHENTICATED and not c.authenticated:
            raise OSError(0x05)
        if v.append:
            room = v.size - len(v.data)
            v.data = v.data + data[: max(room, 0)]
        else:
            v.data = data[: v.size]
        self._call(_IRQ_GATTS_WRITE, (c.handle, value_handle))

    def _air(self, conn=None):
        """The connection event happened: the controller's queue is free again."""
        for h, c in self.conns.items():
            if conn is None or h == conn:
                c.in_air = 0

    def _pair(self, mitm=True, conn=None, key=b"peer-key"):
        """The central starts LE pairing: with a display-only board the stack asks for a
        passkey to show (``mitm``: passkey entry; else "just works", unauthenticated); then
        the link is encrypted and keys are stored via SET_SECRET under ``key``."""
        c = self._c(conn)
        if mitm:
            self._call(_IRQ_PASSKEY_ACTION, (c.handle, _PASSKEY_ACTION_DISP, 0))
        self._call(_IRQ_SET_SECRET, (1, key, b"ltk-bytes"))
        c.encrypted = True
        c.authenticated = mitm
        self._call(_IRQ_ENCRYPTION_UPDATE, (c.handle, True, mitm, True, 16))

    def _start_pairing(self, conn=None):
        """The central starts LE pairing with passkey entry and never finishes it (nobody types
        the passkey): the stack asks the peripheral for one to show, the link stays in clear."""
        c = self._c(conn)
        self._call(_IRQ_PASSKEY_ACTION, (c.handle, _PASSKEY_ACTION_DISP, 0))

    def _encrypt(self, conn=None, key=b"peer-key"):
        """A bonded central reconnects and starts encryption with the stored keys: the stack
        looks the bond up (_IRQ_GET_SECRET) and, when the peripheral has it, the link is
        encrypted without a new passkey. Returns False (link left in clear) without a bond."""
        c = self._c(conn)
        if self._call(_IRQ_GET_SECRET, (1, 0, key)) is None:
            return False
        c.encrypted = True
        c.authenticated = True
        self._call(_IRQ_ENCRYPTION_UPDATE, (c.handle, True, True, True, 16))
        return True

    def _get_secret(self, sec_type, key):
        return self._call(_IRQ_GET_SECRET, (sec_type, 0, key))

    def _disconnect(self, conn=None):
        c = self.conns.pop(self.conn if conn is None else conn, None)
        if c is None:
            return
        if self.conn == c.handle:
            self.conn = max(self.conns) if self.conns else None
        self._call(_IRQ_CENTRAL_DISCONNECT, (c.handle, 0, c.addr))
