"""A firmware-side board on the USB-serial REPL transport, for the serial end-to-end test
(run under the MicroPython unix port with stdin/stdout on a pty, as an ESP32's REPL port):

    socat PTY,link=/tmp/x/tty,raw,echo=0 \\
          EXEC:"micropython -i tests/mpy/link_serial_board.py",pty,raw,echo=0,stderr,setsid

Serves ``app.link`` over ``app.serial_link.serve`` (a ``StdioTransport``) with the demo
``MemoryStore`` of ``link_server.py``. Everything the board prints (``READY serial``,
``CODE nnnnnn`` when pairing, then ``PRESSED``: its owner presses ROLL, ``link_server.Owner``)
shares the port with the frames, as a real board's log output would. A record is published every
100 ms for watching hosts (``tick N``). An
out-of-frame Ctrl-C ends the program (``-i``: back to the REPL, where mpremote works).
"""

import asyncio
import os

from app import serial_link
from app.link import Hub
from bg.link.board import Board
from link_server import Clock, memory_store, owner, show


async def ticker(hub):
    n = 0
    while True:
        await asyncio.sleep_ms(100)
        owner.tick()
        n += 1
        hub.publish(b"tick %d" % n)


async def main():
    board = Board(memory_store(), Clock(), os.urandom, show_code=show, firmware="sim-0.1")
    board.open_pairing(600000)
    hub = Hub(board)
    owner.hub = hub
    asyncio.create_task(ticker(hub))
    print("READY serial")
    await serial_link.serve(hub)  # returns at EOF; an out-of-frame Ctrl-C raises KeyboardInterrupt


asyncio.run(main())
