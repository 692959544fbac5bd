"""bg.link.requests transfers: fetch in MTU-sized chunks, credits and acks, resume after a disconnect.

Runs unchanged under CPython and the MicroPython unix port.
"""

# mpy-heap: 78k
# The 64-bit port with the firmware in its ROM image needs 62-66k here (both ends of a session
# in one interpreter; measured in three checkouts, 66k with the 32-bit session counter and
# authenticated ERROR frames, 62k and 64k at earlier and intermediate commits of that
# branch: layout, not a leak -- the board model's need moved 32k/36k the same way; declared
# with 8k or more to spare:
# the figure moves with the checkout's path and the heap layout, tools/bench/heapmargin.py).
# On the board model it runs with the board's 64k (needs < 40k): docs/memory.md.

from link_fakes import roomy, skip_all

if roomy(120000, 90000):
    import gc
    import struct

    from bg import link as P
    from bg.link.session import Session
    from link_helpers import M1, exchange, paired_session


def _fetch(s, h, mid, off=0, ln=0xFFFFFFFF, credits=255):
    return h.request(P.REQ_FETCH, mid + struct.pack("<IIB", off, ln, credits))


def test_fetch_whole_match():
    b, s, h, _ = paired_session()
    r = exchange(s, h, _fetch(s, h, M1))
    assert r[0][0] == P.RSP | P.REQ_FETCH
    assert struct.unpack("<III", r[0][1][8:]) == (771, 0, 771)
    data = b""
    for t, p, _flags in r[1:]:
        assert t == P.DATA
        assert struct.unpack("<I", p[:4])[0] == len(data)
        data += p[4:]
    assert r[-1][2] & P.FLAG_LAST
    assert data == b.store.read_match(M1, 0, 10000)


def test_fetch_respects_credits_and_ack_grants_more():
    b, s, h, _ = paired_session()
    r = exchange(s, h, _fetch(s, h, M1, credits=2))
    assert [t for t, _, _ in r] == [P.RSP | P.REQ_FETCH, P.DATA, P.DATA]
    got = sum(len(p) - 4 for _, p, _ in r[1:])
    r = exchange(s, h, h.request(P.REQ_ACK, struct.pack("<IB", got, 2)))
    assert [t for t, _, _ in r] == [P.DATA] * 2
    got += sum(len(p) - 4 for _, p, _ in r)
    r = exchange(s, h, h.request(P.REQ_ACK, struct.pack("<IB", got, 10)))
    assert len(r) == 1 and r[0][2] & P.FLAG_LAST and s.xfer is None  # 771 bytes = 5 frames


def test_resume_after_disconnect():
    """Interrupt a fetch, reconnect with a new session and continue from the offset."""
    b, s, h, key = paired_session()
    r = exchange(s, h, _fetch(s, h, M1, credits=3))
    part = b"".join(p[4:] for t, p, _ in r if t == P.DATA)
    s.close()
    from bg.link.host import HostEnd
    from link_helpers import Rand, auth

    s2 = Session(b, 185)
    h2 = HostEnd(Rand(b"again"))
    auth(s2, h2, key)
    r = exchange(s2, h2, _fetch(s2, h2, M1, off=len(part)))
    assert struct.unpack("<III", r[0][1][8:]) == (771, len(part), 771)
    rest = b"".join(p[4:] for t, p, _ in r if t == P.DATA)
    # Both sessions and host ends are done: free them before reading the match back (board and
    # host share this interpreter's 64k heap).
    del r, s, h, s2, h2
    gc.collect()
    assert part + rest == b.store.read_match(M1, 0, 10000)


if not roomy(120000, 90000):
    skip_all(globals())
