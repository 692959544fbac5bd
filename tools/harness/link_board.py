"""The board of the link tests (portable: CPython and MicroPython): a ``MemoryStore`` with
three matches and a ``Board`` on the manual clock, open for pairing.

Its own small module so board-only tests (serial, BLE) need not compile the host helpers of
``link_helpers`` (which re-exports all of this).
"""

from bg import link as P
from bg.link.board import Board
from bg.link.store import MemoryStore
from link_fakes import Clock, Rand

M1 = b"MATCH001"
M2 = b"MATCH002"
LIVE = b"MATCH003"


def make_store():
    st = MemoryStore(b"BOARD042", "Kitchen")
    st.add(M1, bytes(range(256)) * 3 + b"end", P.STATE_FINISHED, b"S" * 32)
    st.add(M2, b"short match", P.STATE_ABANDONED, b"T" * 32)
    st.add(LIVE, b"live so far", P.STATE_LIVE, b"U" * 32)
    return st


def make_board(seed=b"board"):
    codes = []
    b = Board(make_store(), Clock(), Rand(seed), show_code=codes.append)
    b.codes = codes
    b.open_pairing(60000)
    return b
