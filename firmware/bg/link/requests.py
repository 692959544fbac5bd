"""Link requests of an authenticated session: list, fetch/ack/cancel, delete, watch, reveal,
set clock, rename, unpair, hosts, player seed, crash log (a decision for the computer: ``bg.link.decide``).

Functions ``f(session, frame)`` dispatched by ``bg.link.session``; each checks everything
before it changes anything (a delete of several matches is all-or-nothing).
"""

import struct

from micropython import const

# the package's names read through it (``P.NAME``), not copied into this module's dict: 23
# slots instead of 47 while a host is logged in (docs/memory.md)
from bg import link as P


def list_matches(s, fr):
    p = fr.payload
    if len(p) != 2:
        raise ValueError("list needs a start index (u16)")
    start = p[0] | (p[1] << 8)
    ms = s.board.store.list_matches()
    page = ms[start : start + P.LIST_PAGE]
    out = bytearray(struct.pack("<HHB", len(ms), start, len(page)))
    for mid, size, state in page:
        out += bytes(mid) + struct.pack("<IB", size, state)
    s._reply(P.RSP | P.REQ_LIST, out)


def find(s, mid):
    for m in s.board.store.list_matches():
        if m[0] == mid:
            return m
    raise KeyError(mid)


def fetch(s, fr):
    p = fr.payload
    if len(p) != P.ID_LEN + 9:
        raise ValueError("fetch needs match id, offset, length, credits")
    mid = bytes(p[: P.ID_LEN])
    off, ln, credits = struct.unpack("<IIB", p[P.ID_LEN :])
    m = find(s, mid)
    size = m[1]
    if off > size:
        raise ValueError("offset beyond the end of the match")
    end = size if ln > size - off else off + ln
    s.xfer = [mid, off, end, credits or 8]
    s._reply(P.RSP | P.REQ_FETCH, mid + struct.pack("<III", size, off, end))


def ack(s, fr):
    p = fr.payload
    if len(p) != 5:
        raise ValueError("ack needs offset and credits")
    off, credits = struct.unpack("<IB", p)
    x = s.xfer
    if x is None:
        return  # the transfer already ended: a late ack is harmless
    if off > x[1] or off > x[2]:
        raise ValueError("ack beyond what was sent")
    # The offset only confirms what arrived; it never rewinds: frames still in flight when
    # the host acked are not lost (BLE notifications and TCP are reliable and in order), and
    # resending them made the host see duplicates. A host that detects a gap re-FETCHes.
    c = x[3] + credits
    x[3] = c if c < 255 else 255


def cancel(s, fr):
    s.xfer = None
    s._reply(P.RSP | P.REQ_CANCEL, b"")


_ENTRY = const(40)  # ID_LEN + DIGEST_LEN
_CHUNK = const(256)  # bytes read at a time while hashing a match file
# bg.record.MAX_PROOF, folded in at compile time (no global kept in RAM); the request test
# sends exactly that many bytes and one more
_MAX_PROOF = const(160)


def digest(store, mid, size):
    """SHA-256 of the first ``size`` bytes of a stored match (read in small pieces: a match
    file is never held in RAM whole). OSError when the store returns fewer bytes."""
    import hashlib

    h = hashlib.sha256()
    off = 0
    while off < size:
        n = size - off
        if n > _CHUNK:
            n = _CHUNK
        b = store.read_match(mid, off, n)
        if len(b) != n:
            raise OSError("short read")
        h.update(b)
        off += n
    return h.digest()


def delete(s, fr):
    """Delete finished matches the host stored: each entry is a match id and the SHA-256 of
    the match file's bytes the host holds. All-or-nothing: every id must exist, be finished
    (or abandoned) and hash to exactly that digest before any is removed."""
    p = fr.payload
    if not p or len(p) % _ENTRY or len(p) // _ENTRY > P.MAX_DELETE:
        raise ValueError("delete needs 1..%d (match id, sha-256) entries" % P.MAX_DELETE)
    ids = [bytes(p[i : i + P.ID_LEN]) for i in range(0, len(p), _ENTRY)]
    if len(set(ids)) != len(ids):
        raise ValueError("a match id twice")
    known = {}
    for m in s.board.store.list_matches():
        known[bytes(m[0])] = m
    for k, mid in enumerate(ids):  # check every entry before deleting any
        m = known.get(mid)
        if m is None:
            raise KeyError(mid)
        if m[2] in (P.STATE_LIVE, P.STATE_DAMAGED):
            return s._error(P.E_STATE, fr.type, fr.seq, 0, "match is still being played")
        at = k * _ENTRY + P.ID_LEN
        if digest(s.board.store, mid, m[1]) != bytes(p[at : at + P.DIGEST_LEN]):
            return s._error(P.E_STATE, fr.type, fr.seq, 0, "match differs from what the host stored")
    n = 0
    for mid in ids:
        if s.xfer is not None and s.xfer[0] == mid:
            s.xfer = None
        s.board.store.delete_match(mid)
        n += 1
    s._reply(P.RSP | P.REQ_DELETE, struct.pack("<H", n))


def watch(s, fr):
    if len(fr.payload) != 1 or fr.payload[0] > 1:
        raise ValueError("watch needs 0 or 1")
    was = s.watching
    s.watching = fr.payload[0] == 1
    if not s.watching:
        s.events = []
        s.lost = 0
    s._reply(P.RSP | P.REQ_WATCH, bytes([fr.payload[0]]))
    u = s.board.unstored
    rec = u() if s.watching and not was and u is not None else None
    if rec is not None:
        # a record of the live match that its file does not hold yet (a throw waiting for its
        # play, app.journal_policy): a host that just fetched the file sees it first
        s.events.append(bytes(rec))


def reveal(s, fr):
    if len(fr.payload) != P.ID_LEN:
        raise ValueError("reveal needs a match id")
    mid = bytes(fr.payload)
    m = find(s, mid)
    if m[2] in (P.STATE_LIVE, P.STATE_DAMAGED):
        return s._error(P.E_STATE, fr.type, fr.seq, 0, "match not finished")
    seed = s.board.store.reveal_seed(mid)
    s._reply(P.RSP | P.REQ_REVEAL, mid + bytes(seed))


def set_clock(s, fr):
    if len(fr.payload) != 4:
        raise ValueError("set clock needs unix time u32")
    t = struct.unpack("<I", fr.payload)[0]
    if t < 1500000000:
        raise ValueError("unix time before 2017")
    setter = getattr(s.board.clock, "set_unix_time", None)
    if setter is None:
        return s._error(P.E_STATE, fr.type, fr.seq, 0, "board has no wall clock")
    setter(t)
    s._reply(P.RSP | P.REQ_SET_CLOCK, fr.payload)


def rename(s, fr):
    name = P.check_name(fr.payload)
    s.board.store.set_name(name)
    if s.board.on_rename:
        s.board.on_rename(name)
    s._reply(P.RSP | P.REQ_RENAME, fr.payload)


def unpair(s, fr):
    p = fr.payload
    if len(p) not in (0, P.ID_LEN):
        raise ValueError("unpair needs nothing (this host) or a host id")
    hid = bytes(p) if p else s.host_id
    if s.board.find_host(hid) is None:
        raise KeyError(hid)
    s._reply(P.RSP | P.REQ_UNPAIR, hid)  # built (and MAC'd) before this session may end
    s.board.revoke(hid)


def player_seed(s, fr):
    """A host's 16-byte dice contribution for the match whose commitment it saw (docs/dice.md),
    with its proof (opaque, up to bg.record.MAX_PROOF bytes: journaled with the part, unread here);
    refused (P.E_STATE) unless that match is between its commitment and its first throw."""
    p = fr.payload
    if len(p) < 48 or len(p) > 48 + _MAX_PROOF:
        raise ValueError(
            "player seed needs the commitment (32 bytes), the seed (16), a proof of <= %d" % _MAX_PROOF
        )
    cb = s.board.on_player_seed
    h = s.board.find_host(s.host_id)
    mid = cb(h[2] if h else "", bytes(p[:32]), bytes(p[32:48]), bytes(p[48:])) if cb else None
    if mid is None:
        return s._error(P.E_STATE, fr.type, fr.seq, 0, "no match waiting for a seed")
    s._reply(P.RSP | P.REQ_PLAYER_SEED, bytes(mid) + bytes(p[:32]))


def hosts(s, fr):
    out = bytearray([len(s.board.hosts)])
    for hid, _, name in s.board.hosts:
        nb = name.encode()
        out += hid + bytes([len(nb)]) + nb
    s._reply(P.RSP | P.REQ_HOSTS, out)


def crash_log(s, fr):
    """A page of the board's crash log (why it last reset: ``bg.crashlog``): the total
    count, the start, then up to ``PAGE`` entries from ``start`` (none past the end)."""
    if len(fr.payload) != 1:
        raise ValueError("crash log needs a start index (u8)")
    s._reply(P.RSP | P.REQ_CRASH_LOG, s.board.store.crash_log(fr.payload[0]))
