"""USB serial transport: the link protocol over ``machine.UART`` or the USB REPL's
stdin/stdout.

Every frame on the wire is preceded by the magic ``MAGIC`` (``b"\\x00GMN"``): a log line or
boot text printed on the same port can never look like a frame start to a reader that
waits for the magic, and a human watching the port sees where frames begin. The board's
decoder treats the magic as noise before the sync byte, so a host may omit it.

Example (ESP32, UART1 on a USB-serial bridge)::

    from machine import UART
    t = serial_link.SerialTransport.from_uart(UART(1, 115200, tx=17, rx=16))
    asyncio.create_task(t.pump_reader())
    asyncio.create_task(hub.add(t).run())

With ``SerialTransport.from_stdio()`` the REPL's own USB port carries the protocol (the
REPL is unusable while it runs; Ctrl-C in ``mpremote`` still interrupts it).
"""

import asyncio

from app.sock_link import StreamTransport

MAGIC = b"\x00GMN"
_SERIAL_MTU = 259  # pace long frames in modest writes on a slow UART


class SerialTransport(StreamTransport):
    """``StreamTransport`` that writes ``MAGIC`` before each frame."""

    async def send(self, frame):
        if self.closed:
            return
        try:
            self.writer.write(MAGIC + frame)
            await self.writer.drain()
        except OSError:
            self._close()

    @classmethod
    def from_uart(cls, uart):
        return cls(asyncio.StreamReader(uart), asyncio.StreamWriter(uart, {}))

    @classmethod
    def from_stdio(cls):
        import sys

        inp = getattr(sys.stdin, "buffer", sys.stdin)
        out = getattr(sys.stdout, "buffer", sys.stdout)
        return cls(asyncio.StreamReader(inp), asyncio.StreamWriter(out, {}))
