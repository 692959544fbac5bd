"""The link's transports: ``tcp:HOST:PORT`` (the simulator), ``serial:DEVICE[@BAUD]``
(pyserial), ``ble:ADDRESS`` (bleak). Each moves whole frames; the protocol is the client's
(``gammon.link.client``). The BLE UUIDs and the serial markers are the firmware's own
(``bg.serialwire``): one copy for both ends."""

import os
import socket
import threading
import time

from bg import link as P  # firmware/ is on the path: gammon/__init__ imports gammon._paths
from bg import serialwire

from gammon.link.base import TIMEOUT, LinkError

BLE_SERVICE_UUID = serialwire.BLE_SERVICE_UUID
BLE_RX_UUID = serialwire.BLE_RX_UUID  # host -> board (write)
BLE_TX_UUID = serialwire.BLE_TX_UUID  # board -> host (notify)
SERIAL_MAGIC = serialwire.MAGIC  # before every frame on a serial line, both ways
SERIAL_HELLO = serialwire.HELLO  # host -> board after opening the port: a new connection
SERIAL_READY = serialwire.READY  # board -> host: what follows belongs to the new connection


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
