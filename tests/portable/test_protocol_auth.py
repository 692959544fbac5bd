"""bg.link.board security: pairing, challenge-response, replay refusal, rate limiting, revocation.

Runs unchanged under CPython and the MicroPython unix port.
"""

# mpy-heap: 84k
# The 64-bit port with the firmware in its ROM image: both ends of a session in one
# interpreter, the pairing's X25519 churning big integers. Whether it passes is not monotonic
# in the heap (fragmentation): at two checkout paths, 2k steps from 56k, it first passed at 64k
# and 68k but failed again at 66k/70k and 72k, and passed everywhere from 74k (CI failed at
# the 68k declared before). Declared: 74k + 8k, rounded up.
# On the board model it runs with the board's 64k (needs < 40k): docs/memory.md.

from link_fakes import roomy, skip_all

if roomy(120000, 90000):
    from bg import link as P
    from bg.link.board import Board, unpack_hosts
    from bg.link.host import HostEnd
    from bg.link.session import Session
    from link_helpers import (
        HOST_ID,
        Rand,
        auth,
        error_code,
        exchange,
        make_board,
        one,
        pair,
        paired_session,
        snapshot,
    )


def _list(s, h):
    return exchange(s, h, h.request(P.REQ_LIST, b"\x00\x00"))


def test_info_needs_no_auth():
    b = make_board()
    s = Session(b, 185)
    h = HostEnd(Rand())
    _, p = one(s, h, h.request(P.REQ_INFO), P.RSP | P.REQ_INFO)
    assert p[0] == P.PROTO_VERSION
    assert p[1] & 1 == 0  # not authenticated
    assert b"BOARD042" in p and b"Kitchen" in p


def test_unauthenticated_requests_refused_and_change_nothing():
    b = make_board()
    s = Session(b, 185)
    h = HostEnd(Rand())
    before = snapshot(b, s)
    for t, pl in (
        (P.REQ_LIST, b"\x00\x00"),
        (P.REQ_DELETE, b"MATCH001"),
        (P.REQ_RENAME, b"evil"),
        (P.REQ_REVEAL, b"MATCH001"),
        (P.REQ_SET_CLOCK, b"\x00\x00\x00\x70"),
        (P.REQ_UNPAIR, b""),
    ):
        assert error_code(one(s, h, h.request(t, pl))) == P.E_AUTH
    assert snapshot(b, s) == before


def test_pairing_shows_code_and_derives_same_key():
    b = make_board()
    s = Session(b, 185)
    h = HostEnd(Rand(b"h"))
    key = pair(b, s, h)
    assert len(b.codes[-2]) == 6 and b.codes[-1] is None  # shown, then cleared
    assert b.hosts == [(HOST_ID, key, "laptop")]
    assert unpack_hosts(b.store.load_keys()) == b.hosts


def test_pairing_closed_without_button():
    b = make_board()
    b.close_pairing()
    s = Session(b, 185)
    h = HostEnd(Rand())
    assert error_code(one(s, h, h.pair_start(HOST_ID, "x"))) == P.E_PAIRING
    assert b.codes == []


def test_pairing_window_expires():
    b = make_board()
    b.clock.advance(60001)
    s = Session(b, 185)
    h = HostEnd(Rand())
    assert error_code(one(s, h, h.pair_start(HOST_ID, "x"))) == P.E_PAIRING


def test_wrong_reveal_refused_and_one_reveal_per_attempt():
    b = make_board()
    s = Session(b, 185)
    h = HostEnd(Rand())
    _, ch = one(s, h, h.pair_start(HOST_ID, "x"), P.RSP | P.REQ_PAIR_START)
    good = h.pair_confirm(ch)
    fr = P.Decoder()
    fr.feed(good, 0)
    payload = bytearray(fr.next()[1].payload)
    payload[0] ^= 1  # another nonce than the one committed to
    r = one(s, h, P.encode_frame(P.REQ_PAIR_CONFIRM, 7, bytes(payload)))
    assert error_code(r) == P.E_DENIED
    assert b.hosts == [] and b.pairing is None and b.codes == []  # nothing was ever shown
    # the right reveal for the cancelled attempt no longer works
    assert error_code(one(s, h, good)) == P.E_PAIRING
    assert not b.confirm_pairing() and b.hosts == []


def test_auth_and_list():
    b, s, h, key = paired_session()
    r = _list(s, h)
    assert r[0][0] == P.RSP | P.REQ_LIST
    total, start, n = r[0][1][0] | (r[0][1][1] << 8), r[0][1][2], r[0][1][4]
    assert (total, start, n) == (3, 0, 3)


def test_unknown_host_denied():
    b = make_board()
    s = Session(b, 185)
    h = HostEnd(Rand())
    _, ch = one(s, h, h.auth_start(b"STRANGER", b"k" * 32), P.RSP | P.REQ_AUTH_START)
    assert error_code(one(s, h, h.auth_proof(ch))) == P.E_DENIED
    assert error_code(_list(s, h)[0]) == P.E_AUTH


def test_wrong_key_denied():
    b, s, h, key = paired_session()
    s2 = Session(b, 185)
    h2 = HostEnd(Rand(b"other"))
    _, ch = one(s2, h2, h2.auth_start(HOST_ID, b"w" * 32), P.RSP | P.REQ_AUTH_START)
    assert error_code(one(s2, h2, h2.auth_proof(ch))) == P.E_DENIED
    assert s2.fails == 1 and s.fails == 0


def test_backoff_doubles_and_is_measured_by_clock():
    b = make_board()
    s = Session(b, 185)
    h = HostEnd(Rand())
    waits = []
    for i in range(4):
        _, ch = one(s, h, h.auth_start(HOST_ID, b"w" * 32), P.RSP | P.REQ_AUTH_START)
        r = one(s, h, h.auth_proof(ch))
        assert error_code(r) == P.E_DENIED
        waits.append(P.parse_error(r[1])[3])
        # while backing off every attempt is refused without being counted
        r = one(s, h, h.auth_start(HOST_ID, b"w" * 32))
        assert error_code(r) == P.E_BACKOFF and s.fails == i + 1
        b.clock.advance(waits[-1] - 1)
        assert error_code(one(s, h, h.auth_start(HOST_ID, b"w" * 32))) == P.E_BACKOFF
        b.clock.advance(1)
    assert waits == [1000, 2000, 4000, 8000]


def test_backoff_caps_and_success_resets():
    b = make_board()
    s = Session(b, 185)
    h = HostEnd(Rand())
    key = pair(b, s, h)
    s.fails = 40
    s.fail_at = b.clock.ticks_ms()
    assert s.backoff_ms() == P.BACKOFF_MAX_MS
    b.clock.advance(P.BACKOFF_MAX_MS)
    auth(s, h, key)
    assert s.fails == 0 and s.backoff_ms() == 0


def test_pair_without_button_only_when_unpaired():
    st_board = make_board()
    b = Board(st_board.store, st_board.clock, Rand(b"q"), pair_without_button=True)
    assert b.pairing_open()
    b.hosts = [(HOST_ID, b"k" * 32, "x")]
    assert not b.pairing_open()


if not roomy(120000, 90000):
    skip_all(globals())
