"""A firmware-side link server for the end-to-end tests (run under the MicroPython unix port).

    micropython tests/mpy/link_server.py PORT [journal:DIR]

Serves the real ``app.link``/``app.sock_link`` code on 127.0.0.1:PORT with a ``MemoryStore``
(three demo matches) or a journal-backed store on DIR. Pairing is open for ten minutes; the
code the board would show on its LEDs is printed as ``CODE nnnnnn``. Every 100 ms a real
action record is published (``bg.record``: ROLL N of alternate sides, dice from N), as the
controller does after each confirmed action (``app.main.App._publish``; the simulator's own
watch test, tests/host/test_sim_watch.py, follows real played turns).
"""

import asyncio
import os
import sys
import time

from app import sock_link
from app.link import Hub
from bg import link as P
from bg.link.board import Board
from bg.link.store import MemoryStore


class Clock:
    def __init__(self):
        self.offset = 0

    def ticks_ms(self):
        return time.ticks_ms()

    def ticks_diff(self, a, b):
        return time.ticks_diff(a, b)

    def unix_time(self):
        return int(time.time()) + self.offset

    def set_unix_time(self, t):
        self.offset = t - int(time.time())
        print("CLOCK", t)


class Owner:
    """The board's owner in these tests: whenever the board shows a pairing value (printed
    ``CODE nnnnnn``; the host test checks it is the number its host shows) they press ROLL
    (``Hub.confirm_pairing``, on the next tick) and open the window again for the next test."""

    def __init__(self):
        self.hub = None
        self.due = False

    def show(self, code):
        if code is not None:
            print("CODE", code)
            self.due = True

    def tick(self):
        if self.due and self.hub is not None:
            self.due = False
            if self.hub.confirm_pairing():
                print("PRESSED")
            self.hub.board.open_pairing(600000)


owner = Owner()
show = owner.show


def memory_store():
    st = MemoryStore(b"SIMBOARD", "Sim board")
    big = bytes((i * 7) & 0xFF for i in range(5000))
    st.add(b"MATCH001", big, P.STATE_FINISHED, b"S" * 32)
    st.add(b"MATCH002", b"short finished match", P.STATE_FINISHED, b"T" * 32)
    st.add(b"MATCH003", b"live match so far", P.STATE_LIVE, b"U" * 32)
    return st


async def ticker(hub):
    from bg import record

    n = 0
    while True:
        await asyncio.sleep_ms(100)
        owner.tick()
        n += 1
        hub.publish(record.encode(record.ROLL, (n & 1, n % 6 + 1, n // 6 % 6 + 1)))


async def main(port, store):
    board = Board(store, Clock(), os.urandom, show_code=show, firmware="sim-0.1")
    board.open_pairing(600000)
    hub = Hub(board)
    owner.hub = hub
    await sock_link.serve(hub, port)
    print("READY", port)
    await ticker(hub)


def make_store(arg):
    if arg.startswith("journal:"):
        from bg.journal import Journal
        from bg.link.journal import JournalStore

        root = arg[8:]
        j = Journal(root)
        j.open()
        return JournalStore(j, root, b"JOURNAL1")
    return memory_store()


if __name__ == "__main__":
    port = int(sys.argv[1])
    store = make_store(sys.argv[2] if len(sys.argv) > 2 else "memory")
    asyncio.run(main(port, store))
