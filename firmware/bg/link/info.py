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
