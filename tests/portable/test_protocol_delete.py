"""bg.link.requests.delete: a host deletes only finished matches, and only the exact bytes it stored
(each entry is a match id and the SHA-256 of the match file); all-or-nothing.

Runs unchanged under CPython and the MicroPython unix port.
"""

# mpy-heap: 72k
# The 64-bit port with the firmware in its ROM image needs 58k here (both ends of a session
# in one interpreter; measured in 2k steps, tools/bench/heapmargin.py); declared with 8k to
# spare: the figure moves with the checkout's path and the heap layout.
# On the board model it runs with the board's 64k (needs 30k): docs/memory.md.

from link_fakes import roomy, skip_all

if roomy(120000, 90000):
    import hashlib

    from bg import link as P
    from link_helpers import LIVE, M1, M2, error_code, one, paired_session, snapshot


def _entry(b, mid, data=None):
    """A DELETE entry: the match id and the SHA-256 of the bytes the host stored."""
    if data is None:
        data = b.store.read_match(mid, 0, 100000)
    return mid + hashlib.sha256(data).digest()


def test_delete_finished_matches():
    b, s, h, _ = paired_session()
    _, p = one(s, h, h.request(P.REQ_DELETE, _entry(b, M1) + _entry(b, M2)), P.RSP | P.REQ_DELETE)
    assert p == b"\x02\x00"
    assert [m[0] for m in b.store.list_matches()] == [LIVE]


def test_delete_is_all_or_nothing():
    b, s, h, _ = paired_session()
    before = snapshot(b, s)
    ok = _entry(b, M1)
    assert error_code(one(s, h, h.request(P.REQ_DELETE, ok + _entry(b, LIVE)))) == P.E_STATE
    assert error_code(one(s, h, h.request(P.REQ_DELETE, ok + _entry(b, b"NOPE0000", b"")))) == P.E_NOT_FOUND
    assert error_code(one(s, h, h.request(P.REQ_DELETE, ok[:5]))) == P.E_PAYLOAD
    assert error_code(one(s, h, h.request(P.REQ_DELETE, ok + ok))) == P.E_PAYLOAD  # an id twice
    assert snapshot(b, s)[0] == before[0]


def test_delete_refuses_a_match_other_than_the_host_stored():
    """A host (or a relay) that never stored the board's exact bytes cannot delete them: the
    id alone (the old request), a digest of other bytes, or of a shorter prefix of the same
    file is refused, and nothing is deleted -- not even the entries that were right."""
    b, s, h, _ = paired_session()
    before = snapshot(b, s)
    data = b.store.read_match(M1, 0, 100000)
    assert error_code(one(s, h, h.request(P.REQ_DELETE, M1))) == P.E_PAYLOAD  # no digest
    for stale in (data[:-1], data + b"x", bytes(len(data)), b""):
        t, p = one(s, h, h.request(P.REQ_DELETE, _entry(b, M2) + _entry(b, M1, stale)))
        assert t == P.ERROR and P.parse_error(p)[0] == P.E_STATE
        assert "differs" in P.parse_error(p)[4]
    assert snapshot(b, s)[0] == before[0]  # both still there
    b.store.append(M1, b"more")  # the board's copy changed after the host hashed it
    assert error_code(one(s, h, h.request(P.REQ_DELETE, _entry(b, M1, data)))) == P.E_STATE
    _, p = one(s, h, h.request(P.REQ_DELETE, _entry(b, M1)), P.RSP | P.REQ_DELETE)
    assert p == b"\x01\x00" and [m[0] for m in b.store.list_matches()] == [M2, LIVE]


if not roomy(120000, 90000):
    skip_all(globals())
