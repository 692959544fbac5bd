"""Logins and deadlines against attackers (docs/protocol.md "Authentication", threat model): a
stranger who floods wrong proofs never locks out a paired host, unauthenticated connections
are dropped, a logged-in host may authenticate again, and every deadline survives the ESP32's
ticks wrap (2^30 ms). Split from test_protocol_pairing.py so each module fits its heap.

Runs unchanged under CPython and the MicroPython unix port.
"""

# mpy-heap: 78k
# (Raised from 70k in session 7: the pass/fail of this module is not monotonic in the heap
# -- fragmentation of both ends' pairing and sessions -- and it failed at 2k-6k below the 70k
# declared; 8k more, checked to pass in a window of 6k either side at two checkout paths.)
# The 64-bit port with the firmware in its ROM image: board and host ends in one interpreter;
# needs 62k there (measured in 2k steps, tools/bench/heapmargin.py), declared + 8k. On the
# board model it needs 32k of the board's 64k.

from link_fakes import TICKS_PERIOD, roomy, skip_all

if roomy(120000, 90000):
    from bg import link as P
    from bg.link import crypto
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
    )

OWNER = b"OWNER001"


def test_wrong_proofs_from_strangers_never_lock_out_the_owner():
    board = make_board(b"lock")
    s_owner = Session(board, 185)
    owner = HostEnd(Rand(b"owner"))
    key = pair(board, s_owner, owner)
    for i in range(6):
        s = Session(board, 185)
        h = HostEnd(Rand(b"x%d" % i))
        host_id = HOST_ID if i % 2 else b"UNKNOWN%d" % i
        _, ch = one(s, h, h.auth_start(host_id, b"w" * 32), P.RSP | P.REQ_AUTH_START)
        assert error_code(one(s, h, h.auth_proof(ch))) == P.E_DENIED
        assert error_code(one(s, h, h.auth_start(host_id, b"w" * 32))) == P.E_BACKOFF
        s.close()
    s2 = Session(board, 185)
    auth(s2, HostEnd(Rand(b"owner2")), key)  # at once: no back-off for the owner
    assert s2.authenticated


def test_unauthenticated_connections_are_dropped_after_a_deadline():
    board = make_board(b"drop")
    idle, pairing, authed = Session(board, 185), Session(board, 185), Session(board, 185)
    hp, ha = HostEnd(Rand(b"p")), HostEnd(Rand(b"a"))
    key = pair(board, authed, ha, host_id=OWNER)
    auth(authed, ha, key, host_id=OWNER)
    board.open_pairing(600000)
    board.clock.advance(P.PAIR_GAP_MS)
    _, ch = one(pairing, hp, hp.pair_start(b"PAIRING1", "p"), P.RSP | P.REQ_PAIR_START)
    exchange(pairing, hp, hp.pair_confirm(ch))
    board.clock.advance(P.UNAUTH_MS - P.PAIR_GAP_MS - 1)
    board.poll()
    assert not (idle.expired or pairing.expired or authed.expired)
    board.clock.advance(1)
    board.poll()
    assert idle.expired and not pairing.expired and not authed.expired
    board.clock.advance(P.PAIR_CODE_MS)
    board.poll()  # the pairing timed out: its host is told, then has UNAUTH_MS like any other
    assert not pairing.expired
    board.clock.advance(P.UNAUTH_MS)
    board.poll()
    assert pairing.expired and not authed.expired


def test_a_logged_in_host_may_authenticate_again_hours_later():
    board = make_board(b"reauth")
    s = Session(board, 185)
    h = HostEnd(Rand(b"h"))
    key = pair(board, s, h)
    auth(s, h, key)
    board.clock.advance(3600000)
    board.poll()
    assert not s.expired
    # AUTH_START inside the session (MAC'd), then the proof, computed as a host would
    s.feed(h.request(P.REQ_AUTH_START, HOST_ID + b"n" * 16))
    d = P.Decoder()
    d.feed(s.pump())
    challenge = d.next()[1].payload
    board.poll()  # between the challenge and the proof
    assert not s.expired
    proof = crypto.auth_proofs(key, HOST_ID, b"n" * 16, bytes(challenge))[0]
    s.feed(P.encode_frame(P.REQ_AUTH_PROOF, 1, proof))
    d.feed(s.pump())
    assert d.next()[1].type == P.RSP | P.REQ_AUTH_PROOF and s.authenticated
    # a stranger's AUTH_STARTs do not extend its deadline
    s2 = Session(board, 185)
    h2 = HostEnd(Rand(b"s"))
    for _ in range(3):
        board.clock.advance(P.UNAUTH_MS // 3 + 1)
        one(s2, h2, h2.auth_start(b"STRANGER", b"k" * 32), P.RSP | P.REQ_AUTH_START)
        board.poll()
    assert s2.expired


def _near_wrap_board(seed):
    board = make_board(seed)
    board.clock.ms = TICKS_PERIOD - 30000  # the window opens 30 s before ticks_ms wraps
    board.open_pairing(60000)
    return board


def test_pairing_window_never_reopens_across_the_ticks_wrap():
    board = _near_wrap_board(b"wrap")
    assert board.pairing_open()
    board.clock.advance(60000)
    assert not board.pairing_open()
    # 6.2 days later ticks_diff against a forgotten deadline changes sign: still closed
    board.clock.advance(TICKS_PERIOD // 2 + 1000)
    s = Session(board, 185)
    h = HostEnd(Rand(b"h"))
    assert error_code(one(s, h, h.pair_start(OWNER, "x"))) == P.E_PAIRING
    # the link task polls every round: a full wrap later (12.4 days) it is still closed
    for _ in range(8):
        board.clock.advance(TICKS_PERIOD // 8)
        board.poll()
        assert not board.pairing_open()
    assert board.window_at is None and board.pairing is None


def test_failed_proof_blocks_only_briefly_across_the_ticks_wrap():
    board = _near_wrap_board(b"wrapfail")
    s = Session(board, 185)
    h = HostEnd(Rand(b"h"))
    key = pair(board, s, h)
    _, ch = one(s, h, h.auth_start(HOST_ID, b"w" * 32), P.RSP | P.REQ_AUTH_START)
    assert error_code(one(s, h, h.auth_proof(ch))) == P.E_DENIED
    board.clock.advance(TICKS_PERIOD // 2 + 5)  # far past the 1 s wait, across the sign change
    auth(s, h, key)
    assert s.authenticated


def test_naming_a_paired_host_keeps_the_slot_only_briefly_across_the_ticks_wrap():
    """``Session.claimed`` (what keeps a connection's slot against newcomers, app.sock_link):
    an AUTH_START naming a paired host claims it for PROVE_MS, across the wrap, and never
    again after (a stranger who knows a host id holds nothing for good); a failed proof or an
    unknown host id claims nothing."""
    board = _near_wrap_board(b"wrapclaim")
    key = pair(board, Session(board, 185), HostEnd(Rand(b"h")))
    board.clock.advance(29000)  # 1 s before ticks_ms wraps
    s, h = Session(board, 185), HostEnd(Rand(b"x"))
    assert not s.claimed()
    one(s, h, h.auth_start(b"UNKNOWN0", b"w" * 32), P.RSP | P.REQ_AUTH_START)
    assert not s.claimed()
    one(s, h, h.auth_start(HOST_ID, b"w" * 32), P.RSP | P.REQ_AUTH_START)
    assert s.claimed()
    board.clock.advance(P.PROVE_MS - 1)  # past the wrap
    assert s.claimed()
    board.clock.advance(1)
    assert not s.claimed() and s.proving_at is None
    board.clock.advance(TICKS_PERIOD // 2 + 1000)  # ticks_diff against it would change sign
    assert not s.claimed()
    _, ch = one(s, h, h.auth_start(HOST_ID, b"w" * 32), P.RSP | P.REQ_AUTH_START)
    assert s.claimed()
    assert error_code(one(s, h, h.auth_proof(ch))) == P.E_DENIED
    assert not s.claimed()  # a wrong proof ends the claim at once
    board.clock.advance(P.BACKOFF_BASE_MS)
    auth(s, HostEnd(Rand(b"h2")), key)
    assert s.claimed()  # logged in


if not roomy(120000, 90000):
    skip_all(globals())
