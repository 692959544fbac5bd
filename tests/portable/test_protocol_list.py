"""bg.link.board requests: list pages, hosts list, watch (split from test_protocol_requests so each
module fits the 64k heap).

Runs unchanged under CPython and the MicroPython unix port.
"""

# mpy-heap: 74k
# The 64-bit port with the firmware in its ROM image needs 63-64k here (both ends of a session
# in one interpreter; measured in three checkouts; declared with 8k or more to spare:
# the figure moves with the checkout's path and the heap layout, tools/bench/heapmargin.py).
# On the board model it runs with the board's 64k (needs < 40k): docs/memory.md.

from link_fakes import roomy, skip_all

if roomy(120000, 90000):
    import gc
    import struct

    from bg import link as P
    from link_helpers import M1, one, paired_session


def test_list_pages():
    b, s, h, _ = paired_session()
    gc.collect()  # the pairing's garbage, before 40 more matches (board and host share 64k)
    for i in range(40):
        b.store.add(b"X%07d" % i, b"x" * i, P.STATE_FINISHED)
    gc.collect()  # the loop's temporaries, before the board builds the listing
    _, p = one(s, h, h.request(P.REQ_LIST, b"\x00\x00"), P.RSP | P.REQ_LIST)
    total, start, n = struct.unpack("<HHB", p[:5])
    assert (total, start, n) == (43, 0, P.LIST_PAGE)
    assert p[5:13] == M1 and struct.unpack("<IB", p[13:18]) == (771, P.STATE_FINISHED)
    _, p = one(s, h, h.request(P.REQ_LIST, struct.pack("<H", 32)), P.RSP | P.REQ_LIST)
    assert struct.unpack("<HHB", p[:5]) == (43, 32, 11)


if not roomy(120000, 90000):
    skip_all(globals())
