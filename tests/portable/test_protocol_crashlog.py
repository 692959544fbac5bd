"""REQ_CRASH_LOG: an authenticated host reads the board's crash log a page at a time; a
stranger (no session key) gets nothing; a malformed request is refused and changes nothing.

Runs unchanged under CPython and the MicroPython unix port.
"""

# mpy-heap: 80k
# (Raised from 68k in session 7: the pass/fail of this module is not monotonic in the heap
# -- fragmentation of both ends' pairing and sessions -- and it failed at 2k-6k below the 68k
# declared; at another checkout path also at 70k: declared 80k, 10k above the last failure seen.)
# Both ends of a session in one interpreter, as test_protocol_requests (58-59k measured there
# on the 64-bit port with the ROM image); on the board model the board's 64k.

from link_fakes import roomy, skip_all

if roomy(120000, 90000):
    from bg import crashlog as CL
    from bg import link as P
    from bg.link.session import Session
    from link_helpers import error_code, make_board, one, paired_session


def _entries(n):
    return [(i + 1, 1763700000 + i, i % len(CL.CAUSE_NAMES), "task %d: " % i + "t" * 90) for i in range(n)]


def test_a_paired_host_reads_every_entry_page_by_page():
    b, s, h, _ = paired_session()
    b.store.crashes = _entries(CL.MAX_ENTRIES)
    got = []
    start = 0
    while True:
        _, p = one(s, h, h.request(P.REQ_CRASH_LOG, bytes([start])), P.RSP | P.REQ_CRASH_LOG)
        total, s0, es = CL.parse_page(p)
        assert total == CL.MAX_ENTRIES and s0 == start and len(es) <= CL.PAGE
        got += es
        start += len(es)
        if start >= total:
            break
    want = [(q, t, c, str(CL.clip(x), "utf-8")) for q, t, c, x in _entries(CL.MAX_ENTRIES)]
    assert got == want
    _, p = one(s, h, h.request(P.REQ_CRASH_LOG, bytes([200])), P.RSP | P.REQ_CRASH_LOG)
    assert CL.parse_page(p) == (CL.MAX_ENTRIES, 200, [])  # past the end: nothing, no error


def test_an_empty_log_is_an_empty_page():
    b, s, h, _ = paired_session()
    _, p = one(s, h, h.request(P.REQ_CRASH_LOG, b"\x00"), P.RSP | P.REQ_CRASH_LOG)
    assert CL.parse_page(p) == (0, 0, [])


def test_malformed_requests_are_refused():
    b, s, h, _ = paired_session()
    b.store.crashes = _entries(2)
    for bad in (b"", b"\x00\x00"):
        assert error_code(one(s, h, h.request(P.REQ_CRASH_LOG, bad))) == P.E_PAYLOAD
    assert b.store.crashes == _entries(2)


def test_a_stranger_without_a_session_key_reads_nothing():
    b = make_board()
    b.store.crashes = _entries(3)
    s = Session(b, 185)
    s.feed(P.encode_frame(P.REQ_CRASH_LOG, 1, b"\x00"))
    f = s.pump()
    dec = P.Decoder()
    dec.feed(f)
    t, fr = dec.next()
    assert t == P.ERROR and P.parse_error(fr.payload)[0] == P.E_AUTH
    assert b"task" not in bytes(f)


if not roomy(120000, 90000):
    skip_all(globals())
