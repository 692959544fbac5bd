"""Firmware-update requests of an authenticated session: begin, chunk, commit.

Functions ``f(session, frame)`` dispatched by ``bg.link.session`` (authenticated hosts only);
the work is ``bg.update.slots.Updater``'s, shared by every session of the board (``Board.updater``),
so a host that reconnects resumes where the bytes stopped. While the game runs the receiver is
``app.update``'s switch: FW_BEGIN restarts the board into update mode (E_BUSY, ``MODE``) and
the host sends the bundle to that boot. Whatever the host, the bundle's
signature and every file's hash are checked (docs/update.md).
"""

import struct

from bg.link import E_BUSY, E_STATE, REQ_FW_BEGIN, REQ_FW_CHUNK, REQ_FW_COMMIT, RSP

MODE = "restarting into update mode"  # the E_BUSY text the host waits and reconnects on


def _updater(s, fr):
    b = s.board
    u = b.updater
    if u is not None and not hasattr(u, "begin"):  # a factory: built at the first update
        u = b.updater = u()
    if u is None:
        s._error(E_STATE, fr.type, fr.seq, 0, "this board takes no updates")
    return u


def begin(s, fr):
    p = fr.payload
    if len(p) != 36:
        raise ValueError("begin needs the bundle id (32 bytes) and its size (u32)")
    u = _updater(s, fr)
    if u is None:
        return
    wait = getattr(u, "restart_ms", 0)
    if wait:  # the game runs: the board restarts into update mode, the host comes back then
        u.restart()
        s._error(E_BUSY, fr.type, fr.seq, wait, MODE)
        return
    size = struct.unpack("<I", p[32:])[0]
    off = u.begin(bytes(p[:32]), size)
    s._reply(RSP | REQ_FW_BEGIN, struct.pack("<II", off, size))


def chunk(s, fr):
    p = fr.payload
    if len(p) < 5:
        raise ValueError("chunk needs an offset (u32) and bytes")
    u = _updater(s, fr)
    if u is None:
        return
    off = struct.unpack("<I", p[:4])[0]
    s._reply(RSP | REQ_FW_CHUNK, struct.pack("<I", u.write(off, memoryview(p)[4:])))


def commit(s, fr):
    if fr.payload:
        raise ValueError("commit takes no payload")
    u = _updater(s, fr)
    if u is None:
        return
    s._reply(RSP | REQ_FW_COMMIT, u.commit().encode())
