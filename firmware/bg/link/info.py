"""The INFO reply (docs/protocol.md): the board's encoder and the host's decoder, one layout.

Layout: version u8, flags u8, max payload u16, paired hosts u8, board id 8, name length u8 +
UTF-8, firmware length u8 + ASCII; then, on an authenticated session only, the battery block:
millivolts u16, percent u8 (``bg.battery.NO_BATTERY`` = 255: no battery fitted or not read
yet), state u8 (``bg.battery.F_*``: fitted, low, critical, idle, charging, on USB). Fields are only ever
appended: an older host reads what it knows and ignores the rest; a newer host reading an older
board (or a session not logged in) finds no battery block and says so (``battery`` None).

Example::

    >>> p = encode(1, 512, 1, b"BOARD001", "kitchen", "1.0", (3790, 48, 1))
    >>> d = decode(p)
    >>> d["name"], d["battery"]
    ('kitchen', (3790, 48, 1))
"""

import struct

from bg import link as P
from bg.link import MAX_NAME, PROTO_VERSION

BATTERY_LEN = 4


def encode(flags, max_payload, nhosts, board_id, name, firmware, battery=None):
    """INFO's payload; ``battery`` is ``(mV, percent, state)`` or None (no block)."""
    name = name.encode()[:MAX_NAME] if isinstance(name, str) else name
    fw = firmware.encode()[:16] if isinstance(firmware, str) else firmware
    p = struct.pack("<BBHB", PROTO_VERSION, flags, max_payload, nhosts)
    p += bytes(board_id) + bytes([len(name)]) + name + bytes([len(fw)]) + fw
    if battery is not None:
        mv, pct, state = battery
        p += struct.pack("<HBB", min(max(mv, 0), 0xFFFF), pct & 0xFF, state & 0xFF)
    return p


def answer(s, fr):
    """The board's answer to INFO on session ``s`` (``bg.link.session``'s handler: here, not
    with pairing and login in ``bg.link.auth``, so that a logged-in host asking INFO does not
    bring the login's module back into the heap; docs/memory.md)."""
    b = s.board
    name = b.store.get_name().encode()[:MAX_NAME]
    fw = b.firmware.encode()[:16]
    # whether the pairing window is open is told to paired hosts only (a stranger learns it
    # only by trying PAIR_START, and even then pairing needs the board's button)
    flags = (1 | (2 if b.pairing_open() else 0)) if s.mac_in is not None else 0
    # the battery block (appended: older hosts ignore it) goes to logged-in hosts only
    bat = b.battery() if b.battery is not None and s.mac_in is not None else None
    s._reply(
        P.RSP | P.REQ_INFO, encode(flags, P.MAX_PAYLOAD, len(b.hosts), b.store.board_id(), name, fw, bat)
    )


def decode(p):
    """INFO's fields as a dict; ``ValueError`` for a reply too short for what it announces."""
    if len(p) < 14:
        raise ValueError("INFO reply too short")
    ver, flags, maxp, nhosts = struct.unpack("<BBHB", p[:5])
    n = p[13]
    if len(p) < 15 + n or len(p) < 15 + n + p[14 + n]:
        raise ValueError("INFO reply cut short")
    m = p[14 + n]
    end = 15 + n + m
    battery = None
    if len(p) >= end + BATTERY_LEN:
        battery = struct.unpack("<HBB", p[end : end + BATTERY_LEN])
    return {
        "protocol": ver,
        "authenticated": bool(flags & 1),
        "pairing_open": bool(flags & 2),
        "max_payload": maxp,
        "paired_hosts": nhosts,
        "board_id": bytes(p[5:13]),
        "name": str(p[14 : 14 + n], "utf-8"),
        "firmware": str(p[15 + n : end], "utf-8"),
        "battery": battery,
    }
