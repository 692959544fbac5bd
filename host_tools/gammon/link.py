"""Client library for the board's link (the host side of docs/protocol.md).

Transports: ``tcp:HOST:PORT`` (the simulator), ``serial:/dev/ttyUSB0[@BAUD]`` (pyserial, if
installed), ``ble:AA:BB:CC:DD:EE:FF`` (bleak, if installed). Frames, MACs and key derivation
come from the firmware's own ``bg.link``/``bg.link.host`` (one copy of the protocol).

Pairing keys live in the per-user config dir (``platformdirs``; ``GAMMON_CONFIG_DIR``
overrides it), in ``boards.json`` (mode 0600), one entry per board id (each board has its
own: two boards paired from one host keep both keys; an entry saved under the old shared id
``GAMMON00`` moves to the board's real id the first time its key authenticates)::

    {"default": "<board id hex>",
     "boards": {"<board id hex>": {"name": ..., "address": "tcp:127.0.0.1:7607",
                                   "host_id": "<hex>", "key": "<hex>"}}}

Example::

    from gammon.link import connect
    with connect("tcp:127.0.0.1:7607") as c:          # or a saved board's name/id, or None
        for g in c.list_games():
            data = c.fetch_game(g["id"], progress=print)
            if g["finished"]:  # store ``data`` first, then delete exactly what was stored
                c.delete_games([(g["id"], hashlib.sha256(data).digest())])
        for record in c.watch():                       # live actions as they are confirmed
            ...
"""

import json
import os
import socket
import struct
import threading
import time
from pathlib import Path

from bg import link as P  # firmware/ is on the path: gammon/__init__ imports gammon._paths
from bg import serialwire
from bg.link.host import HostEnd, error_text

BLE_SERVICE_UUID = "b6a70001-3b1c-4a4e-9c8e-6d5f0a7e2b10"
BLE_RX_UUID = "b6a70002-3b1c-4a4e-9c8e-6d5f0a7e2b10"
BLE_TX_UUID = "b6a70003-3b1c-4a4e-9c8e-6d5f0a7e2b10"
SERIAL_MAGIC = serialwire.MAGIC  # before every frame on a serial line, both ways
SERIAL_HELLO = serialwire.HELLO  # host -> board after opening the port: a new connection
SERIAL_READY = serialwire.READY  # board -> host: what follows belongs to the new connection
WINDOW = 16  # DATA frames in flight during a fetch
TIMEOUT = 10.0
PAIR_TIMEOUT = 60.0  # the board's X25519 key generation (well under a second on an ESP32)
LEGACY_BOARD_ID = b"GAMMON00".hex()  # what every board reported before unique board ids
CONFIRM_TIMEOUT = P.PAIR_CODE_MS / 1000.0 + 5.0  # the board waits this long for its button
BUSY_TEXT = (
    "another host is pairing with the board right now: if the board shows a number, do NOT "
    "press its button; wait until the number goes away, open pairing again and retry"
)


class LinkError(Exception):
    """The board refused a request (``code`` is a protocol ``E_*``) or the link failed."""

    def __init__(self, msg, code=0, retry_ms=0):
        super().__init__(msg)
        self.code = code
        self.retry_ms = retry_ms


# ---------------------------------------------------------------- transports


class TcpTransport:
    """A TCP connection to the simulator's socket transport."""

    mtu = 515

    def __init__(self, host, port, timeout=5.0):
        try:
            self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        except OSError as e:
            raise LinkError("cannot connect to %s:%s: %s" % (host, port, e)) from None
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def send(self, data):
        try:
            self.sock.sendall(data)
        except OSError as e:
            raise LinkError("link lost: %s" % e) from None

    def recv(self, timeout):
        self.sock.settimeout(max(timeout, 0.001))
        try:
            data = self.sock.recv(4096)
        except TimeoutError:
            return b""
        except OSError as e:
            raise LinkError("link lost: %s" % e) from None
        if not data:
            raise LinkError("the board closed the connection")
        return data

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class SerialTransport:
    """USB serial (pyserial): the board's REPL port or a UART bridge (``app.serial_link``).

    Every frame, both ways, is preceded by ``SERIAL_MAGIC``; the host's frames are stuffed
    (``bg.serialwire.stuff``: no raw NUL, Ctrl-C or CR inside them). On opening, the host sends
    ``SERIAL_HELLO`` (a new connection: the board drops the previous host's session) and
    waits for ``SERIAL_READY``; everything the board sent before that is stale. A board frame
    is taken only with a valid CRC: after a damaged one (a lost or flipped byte) the reader
    hunts for the next magic from the byte after the bad one's. Bytes that are not part of a
    magic-prefixed frame are the board's printed text (log lines, the REPL): they are kept,
    last ``TEXT_KEEP`` bytes, in ``text``.
    """

    mtu = 515
    TEXT_KEEP = 8192
    CHUNK = 128  # bytes per write ...
    PACE_S = 0.005  # ... and the pause between writes of one frame

    def __init__(self, port, baud=115200, timeout=5.0):
        try:
            import serial
        except ImportError:
            raise LinkError("serial transport needs pyserial: pip install pyserial") from None
        self.text = bytearray()
        self.pend = bytearray()
        self.bad = 0  # board frames dropped for a bad CRC
        # exclusive: a second program on the port would steal half of the bytes. pyserial
        # asserts DTR and RTS together on open, which does not reset an ESP32 dev board.
        opts = {"timeout": 0.1, "write_timeout": timeout, "exclusive": True}
        try:
            self.ser = serial.Serial(port, baud, **opts)
        except (OSError, ValueError) as e:
            real = os.path.realpath(port)
            if real == port:
                raise LinkError("cannot open %s: %s" % (port, e)) from None
            try:  # some platforms' termios refuse a symlink to a pty: open what it points to
                self.ser = serial.Serial(real, baud, **opts)
            except (OSError, ValueError) as e2:
                raise LinkError("cannot open %s: %s" % (port, e2)) from None
        try:
            self._hello(port, timeout)
        except BaseException:
            self.ser.close()
            raise

    def _hello(self, port, timeout):
        self.ser.reset_input_buffer()
        self._write(SERIAL_HELLO)
        end = time.monotonic() + timeout
        got = bytearray()
        while time.monotonic() < end:
            got += self._read(0.1)
            i = got.find(SERIAL_READY)
            if i >= 0:
                self._log(got[:i])
                self.pend += got[i + len(SERIAL_READY) :]
                return
        self._log(got)
        raise LinkError(
            "no answer from a board on %s within %.0f s (is the firmware running its serial link,"
            " not sitting at the REPL?)" % (port, timeout)
        )

    def _write(self, data):
        try:
            self.ser.write(data)
            self.ser.flush()
        except Exception as e:  # noqa: BLE001 - pyserial raises SerialException, OSError, ...
            raise LinkError("link lost: %s" % e) from None

    def _read(self, timeout):
        try:
            self.ser.timeout = max(timeout, 0.001)
            return self.ser.read(self.ser.in_waiting or 1)
        except Exception as e:  # noqa: BLE001
            raise LinkError("link lost: %s" % e) from None

    def _log(self, data):
        self.text += data
        del self.text[: -self.TEXT_KEEP]

    def send(self, data):
        # The ESP32 queues REPL-port input in a 260-byte ring buffer (ports/esp32/mphalport.c)
        # that the link drains only when the board's asyncio loop runs: pace long frames
        # (pairing, deletes) so a busy loop never drops bytes.
        data = SERIAL_MAGIC + serialwire.stuff(data)
        for i in range(0, len(data), self.CHUNK):
            if i:
                time.sleep(self.PACE_S)
            self._write(data[i : i + self.CHUNK])

    def recv(self, timeout):
        """Frame bytes, as soon as a whole frame is in (``b""`` after ``timeout`` s without
        one); the text between frames goes to ``text``."""
        end = time.monotonic() + timeout
        while True:
            self.pend += self._read(max(end - time.monotonic(), 0.001))
            out = self._frames()
            if out or time.monotonic() >= end:
                return out

    def _frames(self):
        p = self.pend
        out = bytearray()
        while True:
            i = p.find(SERIAL_MAGIC)
            if i < 0:
                k = p.rfind(b"\0", max(len(p) - len(SERIAL_MAGIC) + 1, 0))
                if k < 0 or not SERIAL_MAGIC.startswith(p[k:]):
                    k = len(p)
                self._log(p[:k])  # text; keep only what may be the start of a magic
                del p[:k]
                return bytes(out)
            self._log(p[:i])
            del p[:i]
            m = len(SERIAL_MAGIC)
            if len(p) < m + P.HEADER:
                return bytes(out)
            flags = p[m + 2]
            n = p[m + 5] | (p[m + 6] << 8)
            if p[m] != P.SYNC or n > P.MAX_PAYLOAD or flags & ~3:
                self._log(p[:1])  # not a frame after all
                del p[:1]
                continue
            total = m + P.HEADER + n + (P.MAC_LEN if flags & P.FLAG_MAC else 0) + P.CRC_LEN
            if len(p) < total:
                return bytes(out)
            crc = p[total - 2] | (p[total - 1] << 8)
            if P.crc16(p, m, total - P.CRC_LEN) != crc:
                self.bad += 1  # damaged on the way: hunt for the next magic inside it
                self._log(p[:1])
                del p[:1]
                continue
            out += p[m:total]
            del p[:total]

    def interrupt(self):
        """Give the REPL port back to the REPL: ``\\r`` then Ctrl-C, which never occur raw
        in a stuffed frame, stop the board's link (what ``mpremote`` sends when it connects)."""
        self._write(b"\r\x03")

    def close(self):
        try:
            self.ser.close()
        except Exception:  # noqa: BLE001, S110 - closing a port that vanished
            pass


class BleTransport:
    """BLE through bleak, run on a private asyncio loop in a thread so the API stays sync.

    The link is encrypted on the air: right after connecting the host bonds (``pair()``,
    LE Secure Connections; later connections only re-encrypt with the stored keys).

    Writes go to the RX characteristic in pieces of at most MTU - 3 bytes (the characteristic's
    ``max_write_without_response_size`` where the backend knows it: BlueZ reports
    ``mtu_size`` 23 whatever was negotiated), with response, so a busy board slows the host
    down instead of losing bytes. Notifications from TX are collected by the loop thread.
    A disconnect (the board reset, went out of range) is reported at once by ``recv`` and
    ``send`` as ``LinkError("link lost: ...")``, not after a request timeout.
    """

    def __init__(self, address, timeout=15.0):
        try:
            import bleak  # noqa: F401
        except ImportError:
            raise LinkError("BLE needs bleak: pip install 'gammon[ble]' (or pip install bleak)") from None
        import asyncio

        self._asyncio = asyncio
        self.address = address
        self.rx = []
        self.cv = threading.Condition()
        self.lost = None  # why the link ended, once it has
        self.mtu = 23
        self.wsize = 20
        self.client = None
        self.closed = False
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True, name="gammon-ble")
        self.thread.start()
        try:
            self._run(self._connect(address, timeout), timeout + 5)
        except BaseException:
            self.close()
            raise

    def _run(self, coro, timeout):
        fut = self._asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return fut.result(timeout)
        except LinkError:
            raise
        except TimeoutError:  # concurrent.futures/asyncio timeouts (one class since 3.11)
            fut.cancel()
            raise LinkError("BLE: no answer from %s within %.0f s" % (self.address, timeout)) from None
        except Exception as e:  # noqa: BLE001 - bleak raises many kinds (BleakError, D-Bus, OSError)
            raise LinkError("BLE: %s" % (str(e) or type(e).__name__)) from None

    def _lost(self, why):
        with self.cv:
            if self.lost is None:
                self.lost = why
            self.cv.notify_all()

    async def _connect(self, address, timeout):
        from bleak import BleakClient

        def on_disconnect(_client):
            self._lost("the board disconnected")

        def on_notify(_sender, data):
            with self.cv:
                self.rx.append(bytes(data))
                self.cv.notify_all()

        self.client = BleakClient(address, disconnected_callback=on_disconnect, timeout=timeout)
        await self.client.connect()
        rx = self.client.services.get_characteristic(BLE_RX_UUID)
        if rx is None or self.client.services.get_characteristic(BLE_TX_UUID) is None:
            raise LinkError("BLE: %s is not a gammon board (no link service)" % address)
        await self._bond(address)
        self.mtu = self.client.mtu_size or 23
        size = getattr(rx, "max_write_without_response_size", 0) or self.mtu - 3
        self.wsize = max(size, 20)
        await self.client.start_notify(BLE_TX_UUID, on_notify)

    async def _bond(self, address):
        """Encrypt the link: the board refuses its characteristic on an unencrypted one
        (docs/protocol.md, BLE). ``pair()`` bonds with LE Secure Connections the first time
        (the OS asks for the 6 digits the board's dice show) and only encrypts with the stored
        keys after that. CoreBluetooth has no ``pair()``: macOS bonds by itself when the board
        answers "insufficient encryption"."""
        try:
            await self.client.pair()
        except NotImplementedError:
            pass
        except Exception as e:  # noqa: BLE001 - BleakError, D-Bus errors, OSError...
            raise LinkError(
                "BLE: could not bond with %s (%s): the board only talks over an encrypted link;"
                " accept the pairing request and type the 6 digits the board shows"
                % (address, str(e) or type(e).__name__)
            ) from None

    async def _write(self, data):
        n = self.wsize
        for i in range(0, len(data), n):
            await self.client.write_gatt_char(BLE_RX_UUID, data[i : i + n], response=True)

    def send(self, data):
        if self.lost is not None:
            raise LinkError("link lost: %s" % self.lost)
        try:
            self._run(self._write(bytes(data)), TIMEOUT)
        except LinkError as e:
            if self.lost is not None:
                raise LinkError("link lost: %s" % self.lost) from None
            raise e from None

    def recv(self, timeout):
        """Bytes notified since the last call (``b""`` after ``timeout`` s without any)."""
        with self.cv:
            if not self.rx and self.lost is None:
                self.cv.wait(timeout)
            data = b"".join(self.rx)
            self.rx = []
            if not data and self.lost is not None:
                raise LinkError("link lost: %s" % self.lost)
        return data

    async def _disconnect(self):
        if self.client is not None and self.client.is_connected:
            await self.client.disconnect()

    def close(self):
        if self.closed:
            return
        self.closed = True
        try:
            self._run(self._disconnect(), 5)
        except LinkError:
            pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        if not self.thread.is_alive():
            self.loop.close()


def open_transport(address):
    """A transport for ``tcp:HOST:PORT``, ``serial:DEVICE[@BAUD]`` or ``ble:ADDRESS``."""
    kind, _, rest = address.partition(":")
    if kind == "tcp":
        host, _, port = rest.rpartition(":")
        if not host or not port.isdigit():
            raise ValueError("tcp address must be tcp:HOST:PORT, got %r" % address)
        return TcpTransport(host, int(port))
    if kind == "serial":
        dev, _, baud = rest.partition("@")
        if not dev or (baud and not baud.isdigit()):
            raise ValueError("serial address must be serial:DEVICE[@BAUD], got %r" % address)
        return SerialTransport(dev, int(baud) if baud else 115200)
    if kind == "ble":
        return BleTransport(rest)
    raise ValueError("unknown board address %r (use tcp:, serial: or ble:)" % address)


# ---------------------------------------------------------------- saved boards


def config_dir():
    env = os.environ.get("GAMMON_CONFIG_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_config_dir("gammon"))


class Boards:
    """The saved pairings (``boards.json`` in the config dir)."""

    def __init__(self, path=None):
        self.path = Path(path) if path else config_dir() / "boards.json"
        self.data = {"default": None, "boards": {}}
        if self.path.exists():
            try:
                self.data = json.loads(self.path.read_text())
            except ValueError:
                raise ValueError("damaged board list %s: fix or delete it" % self.path) from None
            self.data.setdefault("boards", {})

    def save(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        fd = os.open(str(tmp), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(self.data, f, indent=2, sort_keys=True)
        os.replace(str(tmp), str(self.path))

    def add(self, board_id, name, address, host_id, key):
        bid = board_id.hex()
        self.data["boards"][bid] = {
            "name": name,
            "address": address,
            "host_id": host_id.hex(),
            "key": key.hex(),
            "paired": int(time.time()),
        }
        if not self.data.get("default"):
            self.data["default"] = bid
        self.save()
        return bid

    def rekey(self, old, new):
        """Move the entry saved under board id ``old`` (hex) to ``new``, keys untouched (the
        legacy shared id, once the board proved it holds the key); the default follows, and
        so do the partial fetches kept for it."""
        b = self.data["boards"]
        b[new] = b.pop(old)
        if self.data.get("default") == old:
            self.data["default"] = new
        self.save()
        part = self.path.parent / "partial"
        if (part / old).is_dir() and not (part / new).exists():
            os.replace(str(part / old), str(part / new))

    def forget(self, spec):
        bid = self.find(spec)[0]
        del self.data["boards"][bid]
        if self.data.get("default") == bid:
            self.data["default"] = next(iter(self.data["boards"]), None)
        self.save()
        return bid

    def set_default(self, spec):
        bid = self.find(spec)[0]
        self.data["default"] = bid
        self.save()
        return bid

    def items(self):
        return sorted(self.data["boards"].items(), key=lambda kv: kv[1]["name"])

    def find(self, spec):
        """``(board id hex, entry)`` for a saved board by id, name, address or None (default)."""
        boards = self.data["boards"]
        if spec is None:
            bid = self.data.get("default")
            if not bid or bid not in boards:
                raise ValueError("no paired board: run 'gammon pair ADDRESS' first")
            return bid, boards[bid]
        if spec in boards:
            return spec, boards[spec]
        hits = [(b, e) for b, e in boards.items() if spec in (e["name"], e["address"])]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            raise ValueError("%r matches several boards: use the board id" % spec)
        raise ValueError("no paired board %r (see 'gammon boards')" % spec)


# ---------------------------------------------------------------- the client


def joined_decodes(kept, joined):
    """Whether a resumed fetch can be trusted: ``joined`` (``kept`` + the bytes fetched
    after it) decodes as whole ``bg.record`` records. True when ``kept`` is no record stream
    at all (nothing to check). Packed games are not expanded (``expand=False``)."""
    from bg import record
    from bg.record import decode as recdec

    d = recdec.Decoder(bytes(kept), expand=False)
    for _ in d:
        pass
    if d.status == record.CORRUPT:
        return True
    d = recdec.Decoder(bytes(joined), expand=False)
    for _ in d:
        pass
    return d.status == record.OK and d.valid == len(joined)


class Client:
    """One connection to a board. Methods raise ``LinkError`` when the board refuses."""

    def __init__(self, transport, address=""):
        self.t = transport
        self.address = address
        self.host = HostEnd(os.urandom)
        self.events = []
        self.pending = []
        self.board_id = None
        self.sent = []  # every frame sent (tests use it to replay a captured session)

    # context manager
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self.t.close()

    # -- frame exchange
    def _send(self, frame):
        self.sent.append(frame)
        self.t.send(frame)

    def _next(self, timeout):
        """The next non-event frame ``(type, payload, flags)`` within ``timeout`` seconds."""
        end = time.monotonic() + timeout
        while True:
            while self.pending:
                fr = self.pending.pop(0)
                if fr[0] == P.EVENT:
                    self.events.append(fr[1])
                    continue
                return fr
            left = end - time.monotonic()
            if left <= 0:
                raise LinkError("the board did not answer within %.0f s" % timeout)
            data = self.t.recv(min(left, 0.5))
            if data:
                self.pending.extend(self.host.feed(data))

    def _check(self, fr, want):
        t, payload, _ = fr
        if t == P.ERROR:
            code, rt, rs, retry, msg = P.parse_error(payload)
            text = error_text(code) + (": " + msg if msg else "")
            if retry:
                text += " (retry in %.1f s)" % (retry / 1000.0)
            raise LinkError(text, code, retry)
        if t != want:
            raise LinkError("unexpected reply type 0x%02x (wanted 0x%02x)" % (t, want))
        return payload

    def call(self, ftype, payload=b"", timeout=TIMEOUT):
        self._send(self.host.request(ftype, payload))
        fr = self._next(timeout)
        while fr[0] == P.DATA:  # the tail of an abandoned transfer
            fr = self._next(timeout)
        return self._check(fr, P.RSP | ftype)

    # -- requests
    def info(self):
        p = self.call(P.REQ_INFO)
        ver, flags, maxp, nhosts = struct.unpack("<BBHB", p[:5])
        bid = p[5:13]
        n = p[13]
        name = p[14 : 14 + n].decode("utf-8", "replace")
        m = p[14 + n]
        fw = p[15 + n : 15 + n + m].decode("utf-8", "replace")
        self.board_id = bid
        return {
            "protocol": ver,
            "authenticated": bool(flags & 1),
            "pairing_open": bool(flags & 2),
            "max_payload": maxp,
            "paired_hosts": nhosts,
            "board_id": bid.hex(),
            "name": name,
            "firmware": fw,
        }

    def pair(self, host_name, show_value, host_id=None, confirm_timeout=None):
        """Pair with the board (numeric comparison, docs/protocol.md): ``show_value(v)`` gets
        the 6 digits to show the user, who presses the board's ROLL button if the board shows
        the same; the board answers only then. ``show_value`` returning ``False`` (the user
        says the numbers differ) abandons the pairing on this side too: a relay that answers
        in the board's place gets nothing stored. Returns ``(host_id, key)``; the caller stores
        them (``Boards.add``)."""
        host_id = host_id or os.urandom(P.ID_LEN)
        ch = b""
        for attempt in range(2):  # one retry after the board's rate limit (a PAIR_START per 2 s)
            self._send(self.host.pair_start(host_id, host_name))
            try:
                ch = self._check(self._next(PAIR_TIMEOUT), P.RSP | P.REQ_PAIR_START)
                break
            except LinkError as e:
                if e.code == P.E_BUSY:
                    raise LinkError(BUSY_TEXT, e.code) from None
                if e.code != P.E_BACKOFF or attempt or not 0 < e.retry_ms <= P.PAIR_GAP_MS:
                    raise
                time.sleep(e.retry_ms / 1000.0)
        self._send(self.host.pair_confirm(ch))
        if show_value(self.host.value) is False:
            raise LinkError("pairing abandoned: the numbers differ (nothing stored)")
        timeout = CONFIRM_TIMEOUT if confirm_timeout is None else confirm_timeout
        try:
            fr = self._next(timeout)
        except LinkError:
            raise LinkError("the board's button was not pressed within %.0f s" % timeout) from None
        proof = self._check(fr, P.RSP | P.REQ_PAIR_CONFIRM)
        try:
            key = self.host.pair_finish(proof)
        except ValueError as e:
            raise LinkError(str(e)) from None
        return host_id, key

    def authenticate(self, host_id, key):
        self._send(self.host.auth_start(host_id, key))
        ch = self._check(self._next(TIMEOUT), P.RSP | P.REQ_AUTH_START)
        self._send(self.host.auth_proof(ch))
        self.host.auth_expect()
        fr = self._next(TIMEOUT)
        if fr[0] == P.ERROR:
            self.host.mac_in = None
        proof = self._check(fr, P.RSP | P.REQ_AUTH_PROOF)
        try:
            self.host.auth_finish(proof)
        except ValueError as e:
            raise LinkError(str(e)) from None

    def list_games(self):
        """``[{"id": hex, "size": bytes, "state": ..., "finished": bool}]``."""
        out = []
        start = 0
        while True:
            p = self.call(P.REQ_LIST, struct.pack("<H", start))
            total, _, n = struct.unpack("<HHB", p[:5])
            for i in range(n):
                e = p[5 + 13 * i : 18 + 13 * i]
                size, state = struct.unpack("<IB", e[8:])
                done = state in (P.STATE_FINISHED, P.STATE_ABANDONED)  # not live, not damaged
                out.append({"id": e[:8].hex(), "size": size, "state": state, "finished": done})
            start += n
            if n == 0 or start >= total:
                return out

    def _partial_path(self, gid):
        bid = self.board_id.hex() if self.board_id else "board"
        return config_dir() / "partial" / bid / (gid + ".part")

    def fetch_game(self, game_id, progress=None, resume=True, offset=None):
        """The bytes of one game/match. ``resume``: continue an interrupted fetch from the
        bytes kept in the config dir's ``partial/`` (the offset the board resumes at);
        ``progress(done, total)`` is called as data arrives.

        A live match's file is not append-only: at GAME_END the board compacts the finished
        game (docs/journal.md), rewriting bytes the host may already hold. So a resumed
        fetch is checked: when the kept bytes were a record stream but the joined bytes no
        longer decode (``bg.record.decode``), they are dropped and the match is fetched from 0."""
        gid = game_id if isinstance(game_id, str) else bytes(game_id).hex()
        mid = bytes.fromhex(gid)
        part = self._partial_path(gid)
        have = b""
        if offset is None:
            offset = 0
            if resume and part.exists():
                have = part.read_bytes()
                offset = len(have)
        try:
            p = self.call(P.REQ_FETCH, mid + struct.pack("<IIB", offset, 0xFFFFFFFF, WINDOW))
        except LinkError as e:
            if not have or e.code != P.E_PAYLOAD:
                raise
            part.unlink()  # the match shrank below what was kept (compacted): start again
            return self.fetch_game(gid, progress, resume=False)
        size, start, end = struct.unpack("<III", p[8:20])
        if start != offset:
            raise LinkError("board resumed at %d, asked %d" % (start, offset))
        if offset > size:
            have, offset = b"", 0
        buf = bytearray(have)
        part.parent.mkdir(parents=True, exist_ok=True)
        pos = offset
        since_ack = 0
        with open(part, "ab" if have else "wb") as f:
            while True:
                t, payload, flags = self._next(TIMEOUT)
                if t == P.ERROR:
                    self._check((t, payload, flags), P.DATA)
                if t != P.DATA:
                    continue
                at = struct.unpack("<I", payload[:4])[0]
                chunk = payload[4:]
                if at < pos:
                    # A resent frame overlaps what we have (same file, same bytes): keep
                    # only what is new.
                    if at + len(chunk) <= pos:
                        continue
                    chunk = chunk[pos - at :]
                elif at > pos:
                    raise LinkError("data out of order at %d (expected %d)" % (at, pos))
                buf += chunk
                f.write(chunk)
                f.flush()
                pos += len(chunk)
                if progress:
                    progress(pos, end)
                if flags & P.FLAG_LAST:
                    break
                since_ack += 1
                if since_ack >= WINDOW // 2:
                    self._send(self.host.request(P.REQ_ACK, struct.pack("<IB", pos, since_ack)))
                    since_ack = 0
        part.unlink()
        if have and not joined_decodes(have, buf):
            return self.fetch_game(gid, progress, resume=False)  # rewritten meanwhile: again
        return bytes(buf)

    def delete_games(self, entries):
        """Delete finished games the host has stored: ``entries`` are ``(id, sha256)`` pairs,
        the digest of exactly the bytes the host stored (``hashlib.sha256(data).digest()``);
        the board refuses (E_STATE) when its file differs. All-or-nothing per call of up to
        ``MAX_DELETE``. Returns the number deleted."""
        n = 0
        raw = [bytes.fromhex(i if isinstance(i, str) else bytes(i).hex()) + bytes(d) for i, d in entries]
        for k in range(0, len(raw), P.MAX_DELETE):
            n += struct.unpack("<H", self.call(P.REQ_DELETE, b"".join(raw[k : k + P.MAX_DELETE])))[0]
        return n

    def watch(self, timeout=None):
        """Yield each confirmed action record as the board publishes it (``None`` marks lost
        events: re-fetch the live match). Stops after ``timeout`` idle seconds, if given."""
        self.call(P.REQ_WATCH, b"\x01")
        try:
            while True:
                # frames that came in with the WATCH answer first (an event published at once)
                frames, self.pending = self.pending, []
                bad = None
                for fr in frames:
                    if fr[0] == P.EVENT:
                        self.events.append(fr[1])
                    elif fr[0] == P.ERROR and bad is None:
                        bad = fr
                while self.events:  # every authenticated record first, then the error
                    ev = self.events.pop(0)
                    yield ev[1:] if ev[:1] == b"\x00" else None
                if bad is not None:
                    self._check(bad, P.EVENT)
                data = self.t.recv(timeout if timeout is not None else 1.0)
                if not data:
                    if timeout is not None:
                        return
                    continue
                self.pending.extend(self.host.feed(data))
        finally:
            try:
                self.call(P.REQ_WATCH, b"\x00")
            except LinkError:
                pass

    def reveal_seed(self, game_id):
        gid = game_id if isinstance(game_id, str) else bytes(game_id).hex()
        return self.call(P.REQ_REVEAL, bytes.fromhex(gid))[8:]

    def send_player_seed(self, commitment, seed):
        """Contribute ``seed`` (16 bytes) to the dice of the match that published
        ``commitment`` (32 bytes); returns its match id. LinkError (E_STATE) when that match is
        not waiting for player seeds (docs/dice.md)."""
        return self.call(P.REQ_PLAYER_SEED, bytes(commitment) + bytes(seed))[:8]

    def set_clock(self, unix_time=None):
        t = int(time.time() if unix_time is None else unix_time)
        self.call(P.REQ_SET_CLOCK, struct.pack("<I", t))
        return t

    def rename(self, name):
        raw = name.encode("utf-8")
        P.check_name(raw)
        self.call(P.REQ_RENAME, raw)

    def hosts(self):
        p = self.call(P.REQ_HOSTS)
        out = []
        i = 1
        for _ in range(p[0]):
            hid = p[i : i + 8]
            n = p[i + 8]
            out.append((hid.hex(), p[i + 9 : i + 9 + n].decode("utf-8", "replace")))
            i += 9 + n
        return out

    def unpair(self, host_id=None):
        self.call(P.REQ_UNPAIR, bytes.fromhex(host_id) if host_id else b"")


def connect(board_spec=None, boards=None):
    """An authenticated ``Client`` for a saved board (id, name, address, or None for the
    default) or for an address of a board paired earlier.

    The entry used is the one saved under the id the board reports (INFO): several boards
    may have been paired at one address (a simulator started on another flash image). An
    entry saved under ``LEGACY_BOARD_ID`` (firmware before unique board ids: every board
    said ``GAMMON00``) is tried on a board whose id is not saved; when its key authenticates,
    the board proved it holds that key, and the entry moves to the board's real id
    (``Boards.rekey``). A key that fails leaves the store as it was."""
    boards = boards or Boards()
    if board_spec and ":" in board_spec and board_spec.split(":")[0] in ("tcp", "serial", "ble"):
        hits = [(b, e) for b, e in boards.data["boards"].items() if e["address"] == board_spec]
        if not hits:
            raise ValueError("board %s is not paired: run 'gammon pair %s'" % (board_spec, board_spec))
        address = board_spec
    else:
        hits = [boards.find(board_spec)]
        address = hits[0][1]["address"]
    c = Client(open_transport(address), address)
    try:
        got = c.info()["board_id"]
        same = [h for h in hits if h[0] == got]
        old = [h for h in hits if h[0] == LEGACY_BOARD_ID]
        if same:
            bid, entry = same[0]
        elif old and got not in boards.data["boards"]:
            bid, entry = old[0]
        else:
            raise LinkError("the board at %s is %s, not the paired %s" % (address, got, hits[0][0]))
        c.authenticate(bytes.fromhex(entry["host_id"]), bytes.fromhex(entry["key"]))
        if bid != got:
            boards.rekey(bid, got)
    except BaseException:
        c.close()
        raise
    return c


def pair(address, show_value, host_name=None, boards=None):
    """Pair with the board at ``address`` and save the key. Returns the board id (hex).
    ``show_value(v)`` shows the comparison value (see ``Client.pair``)."""
    boards = boards or Boards()
    host_name = (host_name or socket.gethostname() or "host")[: P.MAX_NAME]
    with Client(open_transport(address), address) as c:
        info = c.info()
        host_id, key = c.pair(host_name, show_value)
        c.authenticate(host_id, key)
    return boards.add(bytes.fromhex(info["board_id"]), info["name"], address, host_id, key)


async def scan(timeout=5.0):
    """``[(address, name, rssi)]`` of boards advertising the link service, strongest first
    (needs bleak). Devices whose advertisement lacks the service UUID are left out even when
    a backend lets them through its filter."""
    try:
        from bleak import BleakScanner
    except ImportError:
        raise LinkError("scanning needs bleak: pip install 'gammon[ble]'") from None
    try:
        found = await BleakScanner.discover(
            timeout=timeout, service_uuids=[BLE_SERVICE_UUID], return_adv=True
        )
    except Exception as e:  # noqa: BLE001 - no adapter, Bluetooth off, no D-Bus: BleakError, OSError...
        raise LinkError("BLE scan failed: %s" % (str(e) or type(e).__name__)) from None
    out = []
    for dev, adv in found.values():
        if BLE_SERVICE_UUID not in [str(u).lower() for u in adv.service_uuids or ()]:
            continue
        rssi = adv.rssi if adv.rssi is not None else -127
        out.append((dev.address, adv.local_name or dev.name or "?", rssi))
    return sorted(out, key=lambda x: (-x[2], x[0]))
