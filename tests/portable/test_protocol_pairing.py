"""Pairing against attackers (docs/protocol.md "Pairing", threat model): a relay in the middle
of a real pairing, grinding restarts, the rate limit, a stranger who sees the LEDs, the
board's buttons, replayed reveals, a key that cannot be stored. Logins and deadlines are
test_protocol_login.py.

Runs unchanged under CPython and the MicroPython unix port.
"""

# mpy-heap: 84k
# (Raised from 76k in session 7: the pass/fail of this module is not monotonic in the heap
# -- fragmentation of both ends' pairing and sessions -- and it failed at 2k-6k below the 76k
# declared; 8k more, checked to pass in a window of 6k either side at two checkout paths.)
# The 64-bit port with the firmware in its ROM image: two boards and two host ends in one
# interpreter (the relay test); needs 68k there (measured in 2k steps, tools/bench/heapmargin.py),
# declared + 8k. On the board model it needs 36k of the board's 64k.

from link_fakes import roomy, skip_all

if roomy(120000, 90000):
    from bg import link as P
    from bg.link.host import HostEnd
    from bg.link.session import Session
    from link_helpers import (
        Rand,
        error_code,
        exchange,
        make_board,
        one,
        pair,
    )

OWNER = b"OWNER001"


def _relay_attempt(seed, board_first):
    """A relay between a real host (``HostEnd``) and a real board: it plays the board to the
    host (its own ``Board``, whose session answers as a board would) and the host to the
    board (its own ``HostEnd``), with values of its own on each side. Returns the value the
    host shows, the value the real board shows, and the real board."""
    board = make_board(seed + b"board")
    s_board = Session(board, 185)
    fake_board = make_board(seed + b"relay-board")  # the relay's board-facing-the-host half
    s_fake = Session(fake_board, 185)
    relay_host = HostEnd(Rand(seed + b"relay-host"))  # the relay's host-facing-the-board half
    host = HostEnd(Rand(seed + b"host"))

    start = host.pair_start(OWNER, "laptop")  # the victim's host commits first
    if board_first:
        # the relay completes the board's side first: it knows the board's value before it
        # answers the host, but the host's value depends on the host's committed nonce
        _, ch = one(s_board, relay_host, relay_host.pair_start(OWNER, "laptop"), P.RSP | P.REQ_PAIR_START)
        assert exchange(s_board, relay_host, relay_host.pair_confirm(ch)) == []
        _, ch_h = one(s_fake, host, start, P.RSP | P.REQ_PAIR_START)
        assert exchange(s_fake, host, host.pair_confirm(ch_h)) == []
    else:
        # the host's side first: the relay learns the host's value, then must commit to the
        # board before it sees the board's fresh nonce
        _, ch_h = one(s_fake, host, start, P.RSP | P.REQ_PAIR_START)
        assert exchange(s_fake, host, host.pair_confirm(ch_h)) == []
        _, ch = one(s_board, relay_host, relay_host.pair_start(OWNER, "laptop"), P.RSP | P.REQ_PAIR_START)
        assert exchange(s_board, relay_host, relay_host.pair_confirm(ch)) == []
    assert fake_board.codes[-1] == host.value  # the relay's own half agrees with the host
    return host.value, board.codes[-1], board, relay_host.value


def test_relay_in_the_middle_cannot_make_both_values_match():
    for i in range(8):
        for board_first in (True, False):
            v_host, v_board, board, v_relay = _relay_attempt(b"r%d" % i, board_first)
            assert v_relay == v_board  # the relay knows exactly what the board shows...
            assert v_host != v_board  # ...and cannot make it the host's (10^-6 per try)
            assert board.hosts == []  # nothing is stored: the owner sees two numbers, no press
            board.clock.advance(P.PAIR_CODE_MS)
            board.poll()
            assert not board.confirm_pairing() and board.hosts == []


def test_relay_cannot_grind_the_board_for_a_matching_value():
    # Knowing the host's value, a relay restarts pairing with the board hoping for a match:
    # each restart is a fresh try at 10^-6, and a window allows PAIR_TRIES of them.
    board = make_board(b"grind")
    s = Session(board, 185)
    relay = HostEnd(Rand(b"grinder"))
    for _ in range(P.PAIR_TRIES):
        board.clock.advance(P.PAIR_GAP_MS)
        one(s, relay, relay.pair_start(OWNER, "laptop"), P.RSP | P.REQ_PAIR_START)
    board.clock.advance(P.PAIR_GAP_MS)
    assert error_code(one(s, relay, relay.pair_start(OWNER, "laptop"))) == P.E_PAIRING
    board.open_pairing(60000)  # only the owner's button combo gives more tries
    one(s, relay, relay.pair_start(OWNER, "laptop"), P.RSP | P.REQ_PAIR_START)


def test_pair_start_rate_limited_board_wide():
    board = make_board(b"rate")
    s1, s2 = Session(board, 185), Session(board, 185)
    h1, h2 = HostEnd(Rand(b"1")), HostEnd(Rand(b"2"))
    one(s1, h1, h1.pair_start(OWNER, "a"), P.RSP | P.REQ_PAIR_START)
    board.cancel_pairing()
    r = one(s2, h2, h2.pair_start(OWNER, "b"))
    assert error_code(r) == P.E_BACKOFF and 0 < P.parse_error(r[1])[3] <= P.PAIR_GAP_MS
    board.clock.advance(P.PAIR_GAP_MS)
    one(s2, h2, h2.pair_start(OWNER, "b"), P.RSP | P.REQ_PAIR_START)


def test_low_order_public_values_are_refused_and_rate_limited_too():
    board = make_board(b"low")
    s = Session(board, 185)
    h = HostEnd(Rand(b"h"))
    bad = OWNER + bytes(32) + bytes(32) + b"x"  # the all-zero point: an all-zero secret
    r = one(s, h, P.encode_frame(P.REQ_PAIR_START, 1, bad))
    assert error_code(r) == P.E_PAYLOAD and board.pairing is None
    # the board did the key work: the next PAIR_START (good or bad) waits, so a flood of
    # refused values cannot keep the board computing
    assert error_code(one(s, h, P.encode_frame(P.REQ_PAIR_START, 2, bad))) == P.E_BACKOFF
    assert error_code(one(s, h, h.pair_start(OWNER, "x"))) == P.E_BACKOFF
    board.clock.advance(P.PAIR_GAP_MS)
    one(s, h, h.pair_start(OWNER, "x"), P.RSP | P.REQ_PAIR_START)


def test_stranger_who_sees_the_leds_cannot_pair_without_the_owners_press():
    board = make_board(b"race")
    stranger_s, owner_s = Session(board, 185), Session(board, 185)
    stranger, owner = HostEnd(Rand(b"stranger")), HostEnd(Rand(b"owner"))
    # the window state is not told to a stranger
    _, p = one(stranger_s, stranger, stranger.request(P.REQ_INFO), P.RSP | P.REQ_INFO)
    assert p[1] == 0
    # the stranger races the owner, named like the owner's host
    _, ch = one(stranger_s, stranger, stranger.pair_start(b"EVILHOST", "laptop"), P.RSP | P.REQ_PAIR_START)
    assert exchange(stranger_s, stranger, stranger.pair_confirm(ch)) == []
    assert board.codes[-1] == stranger.value and board.pairing_name() == "laptop"
    r = one(owner_s, owner, owner.pair_start(OWNER, "laptop"))
    assert error_code(r) == P.E_BUSY  # the owner's host says so ("do NOT press") and shows no value
    # the contested pairing ends: the stranger's number goes away before the owner could take
    # it for theirs, and its host is told
    assert board.codes[-1] is None and board.pairing is None
    assert error_code(one(stranger_s, stranger, b"")) == P.E_BUSY
    assert not board.confirm_pairing() and board.hosts == []
    board.clock.advance(P.PAIR_CODE_MS)
    board.poll()
    assert board.hosts == [] and not stranger_s.authenticated


def test_a_stranger_who_never_reveals_blocks_pairing_only_briefly():
    board = make_board(b"stall")
    stranger_s, owner_s = Session(board, 185), Session(board, 185)
    stranger, owner = HostEnd(Rand(b"stranger")), HostEnd(Rand(b"owner"))
    one(stranger_s, stranger, stranger.pair_start(b"EVILHOST", "laptop"), P.RSP | P.REQ_PAIR_START)
    board.clock.advance(P.UNAUTH_MS - 1)
    assert error_code(one(owner_s, owner, owner.pair_start(OWNER, "laptop"))) == P.E_BUSY
    board.clock.advance(1)  # stage 1 (no reveal) lasts at most UNAUTH_MS, not PAIR_CODE_MS
    pair(board, owner_s, owner, host_id=OWNER)
    assert [h[0] for h in board.hosts] == [OWNER]


def test_the_cube_button_refuses_a_shown_value():
    board = make_board(b"reject")
    s = Session(board, 185)
    h = HostEnd(Rand(b"h"))
    _, ch = one(s, h, h.pair_start(OWNER, "laptop"), P.RSP | P.REQ_PAIR_START)
    exchange(s, h, h.pair_confirm(ch))
    assert board.reject_pairing()
    assert error_code(one(s, h, b"")) == P.E_DENIED
    assert board.hosts == [] and board.pairing is None and board.codes[-1] is None
    assert not board.confirm_pairing() and not board.reject_pairing()


def test_a_press_without_a_shown_value_confirms_nothing():
    board = make_board(b"press")
    s = Session(board, 185)
    h = HostEnd(Rand(b"h"))
    assert not board.confirm_pairing()
    one(s, h, h.pair_start(OWNER, "laptop"), P.RSP | P.REQ_PAIR_START)
    assert not board.confirm_pairing() and board.hosts == []  # stage 1: nothing shown yet


def test_a_replayed_reveal_is_refused_and_changes_nothing():
    board = make_board(b"replay")
    s = Session(board, 185)
    h = HostEnd(Rand(b"h"))
    _, ch = one(s, h, h.pair_start(OWNER, "laptop"), P.RSP | P.REQ_PAIR_START)
    reveal = h.pair_confirm(ch)
    assert exchange(s, h, reveal) == []
    shown = list(board.codes)
    assert error_code(one(s, h, reveal)) == P.E_PAIRING  # stage 2 already: not again
    assert board.codes == shown and board.awaiting_button() and board.hosts == []
    # from another connection the same bytes are someone else's pairing: refused too
    s2 = Session(board, 185)
    assert error_code(one(s2, HostEnd(Rand(b"x")), reveal)) == P.E_PAIRING
    assert board.confirm_pairing()  # the owner's attempt is intact
    assert board.hosts[0][0] == OWNER


def test_a_key_that_cannot_be_stored_is_refused_and_nothing_changes():
    board = make_board(b"store")
    s = Session(board, 185)
    h = HostEnd(Rand(b"h"))

    def broken(blob):
        raise OSError(28)  # ENOSPC

    board.store.save_keys = broken
    _, ch = one(s, h, h.pair_start(OWNER, "laptop"), P.RSP | P.REQ_PAIR_START)
    exchange(s, h, h.pair_confirm(ch))
    assert not board.confirm_pairing()  # the press does not raise into the button task
    assert error_code(one(s, h, b"")) == P.E_STORE
    assert board.hosts == [] and board.pairing is None and board.codes[-1] is None


def test_confirmed_pairing_closes_the_window():
    board = make_board(b"close")
    s = Session(board, 185)
    key = pair(board, s, HostEnd(Rand(b"h")))
    assert board.hosts[0][1] == key and not board.pairing_open()
    h2 = HostEnd(Rand(b"h2"))
    board.clock.advance(P.PAIR_GAP_MS)
    assert error_code(one(Session(board, 185), h2, h2.pair_start(b"SECOND01", "x"))) == P.E_PAIRING


if not roomy(120000, 90000):
    skip_all(globals())
