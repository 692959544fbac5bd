"""The simulator server connection of the ``sim`` HAL backend (``hal.sim``): JSON lines over
a local TCP socket (the message types are listed in ``hal.sim``'s docstring).

Kept out of ``hal.sim`` so a headless run (tests, ``tools/sim/heapcheck.py``) does not carry
its code objects in the heap; ``hal.sim.make`` imports it only when ``config["port"]`` is set.
"""

import time

try:
    from binascii import unhexlify
except ImportError:  # pragma: no cover
    from ubinascii import unhexlify

_HEX = b"0123456789abcdef"


class Bus:
    """The JSON-lines connection to the simulator server (blocking writes on a local socket
    are a few hundred bytes; reads happen in the asyncio task ``run``)."""

    def __init__(self, host, port, hw):
        import socket

        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        addr = socket.getaddrinfo(host, port)[0][-1]
        self.sock.connect(addr)
        self.hw = hw
        self.closed = False
        self.on_quit = None
        self._line = None  # send_hex's line buffer, for _line_kind and _line_n data bytes
        self._line_kind = b""
        self._line_n = 0
        self._line_at = 0
        self.probe = False  # the heap probe runs beside ``run`` (``_probe``)

    def _write(self, data):
        if self.closed:
            return
        mv = memoryview(data)
        sent = 0
        while len(mv):
            try:
                n = self.sock.send(mv)
            except OSError as e:
                if e.args and e.args[0] == 11:  # EAGAIN: the server is slow, retry
                    time.sleep_ms(1)
                    continue
                self.closed = True
                return
            sent += n
            if n == len(mv):
                return
            try:
                mv = mv[n:]
            except MemoryError:
                # half a line is out: end it, so the server drops only this line and not
                # the next one too (it would read the two as one line that does not parse)
                if sent:
                    self._newline()
                raise

    def _newline(self):
        """End the line: a constant sent as is, no allocation (a MemoryError here would leave
        the line open and the server would read the next one into it)."""
        while not self.closed:
            try:
                if self.sock.send(b"\n"):
                    return
            except OSError as e:
                if not (e.args and e.args[0] == 11):
                    self.closed = True
            time.sleep_ms(1)

    def send_hex(self, kind, data):
        """One ``{"t": kind, "d": hex}`` line. The line is built in a buffer kept for the last
        kind and size, so an LED frame, 25 times a second, allocates nothing -- as the board's
        ``neopixel.write`` does not; the simulator must not spend heap the board does not."""
        n = len(data)
        line = self._line
        if line is None or self._line_kind != kind or self._line_n != n:
            head = b'{"t":"' + kind + b'","d":"'
            line = self._line = bytearray(len(head) + 2 * n + 3)
            line[: len(head)] = head
            line[len(head) + 2 * n :] = b'"}\n'
            self._line_kind = kind
            self._line_n = n
            self._line_at = len(head)
        j = self._line_at
        for i in range(n):
            b = data[i]
            line[j] = _HEX[b >> 4]
            line[j + 1] = _HEX[b & 15]
            j += 2
        self._write(line)

    def send_line(self, obj):
        """``obj`` as one JSON line. The text and its newline are written apart (MicroPython's
        ``memoryview`` takes a str): one copy of the line in the heap, not three (the text, its
        bytes, those with the newline) -- the status line after a play is ~250 bytes, and on
        the board model it must find its block in the board's fragmented heap."""
        import json

        self._write(json.dumps(obj))
        self._newline()

    def log(self, msg):
        self.send_line({"t": "log", "m": msg})

    def handle(self, line):
        import json

        try:
            msg = json.loads(line)
        except ValueError:
            return
        t = msg.get("t")
        hw = self.hw
        if t == "bits":
            try:
                hw.sensors.set_bits(unhexlify(msg["d"]))
            except (ValueError, KeyError):
                self.log("bad sensor frame ignored")
        elif t == "btn":
            hw.buttons.edge(int(msg.get("i", -1)), int(msg.get("down", 0)))
        elif t == "radio" and hw.radio is not None:
            try:
                hw.radio.deliver(unhexlify(msg["d"]))
            except (ValueError, KeyError):
                pass
        elif t == "time":
            hw.clock.set_unix_time(int(msg.get("unix", 0)))
        elif t == "fault":  # test hook (hal.sim.Faults): a task hangs or dies
            f = getattr(hw, "faults", None)
            if f is not None and msg.get("how") in ("raise", "block", "stall"):
                f.want[str(msg.get("task"))] = msg["how"]
        elif t == "battery" and hw.battery is not None:
            # a line sets the cell's voltage, the charger's CHG / PGOOD pins, or both; one that
            # sets nothing, or a value of the wrong kind, is the page's mistake: said, not taken
            bad = not ("mv" in msg or "charging" in msg or "usb" in msg)
            if "mv" in msg:
                mv = msg["mv"]
                if isinstance(mv, int) and not isinstance(mv, bool) and 0 <= mv <= 6000:
                    hw.battery.mv = mv
                else:
                    bad = True
            for k in ("charging", "usb"):
                if k in msg:
                    if isinstance(msg[k], bool):
                        setattr(hw.battery, k, msg[k])
                    else:
                        bad = True
            if bad:
                self.log("bad battery line ignored")
        elif t == "quit":
            self.closed = True
            if self.on_quit:
                self.on_quit()

    def wait_bits(self, timeout_ms=5000):
        """Block until the server sent the first chain reading (at power-on the real chain is
        readable at once; the simulator's arrives over the socket)."""
        import select

        p = select.poll()
        p.register(self.sock, select.POLLIN)
        buf = b""
        t0 = time.ticks_ms()
        while time.ticks_diff(time.ticks_ms(), t0) < timeout_ms:
            if not p.poll(50):
                continue
            chunk = self.sock.recv(512)
            if not chunk:
                break
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                self.handle(line)
                if self.hw.sensors.changed_ms:
                    self._rest = buf
                    return True
        self._rest = buf
        return False

    async def run(self):
        """Read lines from the server until it goes away (then call ``on_quit``)."""
        import asyncio

        self.sock.setblocking(False)
        if self.probe:
            asyncio.create_task(self._probe())
        rest = getattr(self, "_rest", b"")
        self._rest = b""
        while b"\n" in rest:
            line, rest = rest.split(b"\n", 1)
            self.handle(line)
        reader = asyncio.StreamReader(self.sock)
        while not self.closed:
            line = await reader.readline()
            if not line:
                break
            self.handle(line)
        self.closed = True
        if self.on_quit:
            self.on_quit()

    async def _probe(self, every_ms=500):
        """The heap probe (the simulator only, ``probe``: the tests turn it on for the board
        model): every ``every_ms`` a collection, then ``gc.mem_alloc()``; each time the most
        held since the start grows, a line ``{"t": "hp", "most": bytes, "free": bytes}`` (the
        least free so far, ``gc.mem_free()`` then). Its collections are its own: a board without
        the probe collects when an allocation finds no block. A line that finds no heap is
        sent at the next reading."""
        import asyncio
        import gc

        most = 0
        while not self.closed:
            await asyncio.sleep_ms(every_ms)
            gc.collect()
            a = gc.mem_alloc()
            if a > most:
                f = gc.mem_free()
                try:
                    self.send_line({"t": "hp", "most": a, "free": f})
                    most = a
                except MemoryError:
                    pass
