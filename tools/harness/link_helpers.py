"""Shared set-up for the link protocol tests (portable: CPython and MicroPython).

A manual clock, a deterministic random source, a board with three matches (link_board), and
helpers that run a host (``HostEnd``) against a board ``Session`` in memory.
"""

from bg import link as P
from bg.link.session import Session
from link_board import LIVE, M1, M2, make_board, make_store  # noqa: F401 - re-exported
from link_fakes import Clock, Rand  # noqa: F401 - Clock re-exported


def exchange(session, host, frame):
    """Send one frame to the board and return every frame it sends back (decoded by host)."""
    session.feed(frame)
    out = []
    f = session.pump()
    while f is not None:
        out.extend(host.feed(f))
        f = session.pump()
    return out


def one(session, host, frame, want=None):
    """Exactly one reply; with ``want`` it must be of that type. Returns (type, payload)."""
    r = exchange(session, host, frame)
    assert len(r) == 1, r
    if want is not None:
        assert r[0][0] == want, (r[0][0], P.parse_error(r[0][1]) if r[0][0] == P.ERROR else r)
    return r[0][0], r[0][1]


def error_code(reply):
    assert reply[0] == P.ERROR, reply
    return P.parse_error(reply[1])[0]


HOST_ID = b"HOST0001"


def pair(board, session, host, host_id=HOST_ID, name="laptop"):
    """Pair through the protocol: the board shows the host's value, the user presses the
    board's button (``confirm_pairing``). Returns the key."""
    _, ch = one(session, host, host.pair_start(host_id, name), P.RSP | P.REQ_PAIR_START)
    assert exchange(session, host, host.pair_confirm(ch)) == []  # no answer before the button
    assert board.codes[-1] == host.value  # both ends show the same value
    assert board.confirm_pairing()
    _, proof = one(session, host, b"", P.RSP | P.REQ_PAIR_CONFIRM)
    return host.pair_finish(proof)


def auth(session, host, key, host_id=HOST_ID):
    _, ch = one(session, host, host.auth_start(host_id, key), P.RSP | P.REQ_AUTH_START)
    frame = host.auth_proof(ch)
    host.auth_expect()
    _, proof = one(session, host, frame, P.RSP | P.REQ_AUTH_PROOF)
    host.auth_finish(proof)


def paired_session(seed=b"board"):
    """A board, an authenticated session and its host end."""
    from bg.link.host import HostEnd  # here, not at the top: board-only tests never load the host

    b = make_board(seed)
    s = Session(b, 185)
    h = HostEnd(Rand(b"host"))
    key = pair(b, s, h)
    auth(s, h, key)
    return b, s, h, key


def snapshot(board, session):
    """Everything a request could change: used to prove bad frames change nothing."""
    st = board.store
    return (
        repr(st.list_matches()),
        st.get_name(),
        repr(board.hosts),
        session.fails,
        board.clock.unix,
        session.last_seq,
        session.host_id,
        session.watching,
        repr(session.xfer),
        board.pairing is None,
    )
