"""Link requests allowed before authentication: board info, pairing, challenge-response.

Functions ``f(session, frame)`` dispatched by ``bg.link.session``; each checks everything
before it changes anything.
"""

from bg import link as P
from bg.link.board import (
    P_BOARD_NONCE,
    P_BOARD_PUB,
    P_COMMIT,
    P_HOST_ID,
    P_HOST_PUB,
    P_KEYS,
    P_NAME,
    P_SHARED,
)
from bg.link.crypto import (
    Mac,
    auth_proofs,
    dh_keypair,
    dh_shared,
    equal,
    pair_commit,
    pair_keys,
    pair_transcript,
    pair_value,
)

_HEAD = P.ID_LEN + P.KEY_LEN + P.PUB_LEN  # host id, commitment, host public value


def pair_start(s, fr):
    """Stage 1: the host's id, commitment, public value and name; the board answers with its
    nonce and public value. Nothing is shown yet: the host has not revealed its nonce."""
    b = s.board
    p = fr.payload
    if len(p) < _HEAD + 1:
        raise ValueError("pair start needs host id, commitment, public value and name")
    name = P.check_name(p[_HEAD:])
    if not b.pairing_open():
        return s._error(P.E_PAIRING, fr.type, fr.seq, 0, "pairing is closed: press the pair combo")
    host_id = bytes(p[: P.ID_LEN])
    if len(b.hosts) >= P.MAX_HOSTS and b.find_host(host_id) is None:
        return s._error(P.E_FULL, fr.type, fr.seq)
    pr = b.current_pairing()
    if pr is not None and pr[0] is not s:
        b.contest_pairing()  # the number shown is not this host's: it goes away (Board)
        return s._error(P.E_BUSY, fr.type, fr.seq, 0, "another host is pairing")
    wait = b.start_gap_ms()
    if wait:
        return s._error(P.E_BACKOFF, fr.type, fr.seq, wait)
    b.last_start = b.clock.ticks_ms()  # the key work below counts even when X is refused
    host_pub = bytes(p[P.ID_LEN + P.KEY_LEN : _HEAD])
    x, board_pub = dh_keypair(b.urandom)
    shared = dh_shared(x, host_pub)  # ValueError (nothing changed) for a low-order value
    board_nonce = b.urandom(P.NONCE_LEN)
    b.cancel_pairing()  # this session's earlier attempt, if any
    b.begin_pairing(
        s,
        [
            shared,
            host_id,
            name,
            host_pub,
            bytes(p[P.ID_LEN : P.ID_LEN + P.KEY_LEN]),
            board_nonce,
            board_pub,
            None,
        ],
    )
    s._reply(P.RSP | P.REQ_PAIR_START, board_nonce + board_pub)


def pair_confirm(s, fr):
    """Stage 2: the host reveals its nonce (checked against its commitment) and proves it
    holds the shared secret; the board shows the comparison value and answers only when
    its button is pressed (``Board.confirm_pairing``)."""
    b = s.board
    p = fr.payload
    if len(p) != P.NONCE_LEN + P.KEY_LEN:
        raise ValueError("pair confirm needs the host nonce and a 32-byte proof")
    pr = b.current_pairing()
    if pr is None or pr[0] is not s or pr[2] != 1:
        return s._error(P.E_PAIRING, fr.type, fr.seq)
    host_nonce = bytes(p[: P.NONCE_LEN])
    keys = pair_keys(
        pr[P_SHARED],
        pair_transcript(
            pr[P_HOST_ID], pr[P_NAME].encode(), pr[P_HOST_PUB], pr[P_BOARD_PUB], host_nonce, pr[P_BOARD_NONCE]
        ),
    )
    ok = equal(pair_commit(pr[P_HOST_ID], pr[P_HOST_PUB], host_nonce), pr[P_COMMIT])
    if not (equal(keys[0], p[P.NONCE_LEN :]) and ok):
        b.cancel_pairing()  # one reveal per attempt
        return s._error(P.E_DENIED, fr.type, fr.seq, 0, "pairing proof or commitment is wrong")
    pr[P_KEYS] = keys
    pr[P_SHARED] = None
    b.show_value(pr, pair_value(pr[P_HOST_PUB], pr[P_BOARD_PUB], host_nonce, pr[P_BOARD_NONCE]))


def auth_start(s, fr):
    if len(fr.payload) != P.ID_LEN + P.NONCE_LEN:
        raise ValueError("auth start needs host id and nonce")
    wait = s.backoff_ms()
    if wait:
        return s._error(P.E_BACKOFF, fr.type, fr.seq, wait)
    board_nonce = s.board.urandom(P.NONCE_LEN)
    if s.mac_in is not None:  # a logged-in host authenticating again: a fresh deadline
        s.opened = s.board.clock.ticks_ms()
    s._logout()
    s.auth = (bytes(fr.payload[: P.ID_LEN]), bytes(fr.payload[P.ID_LEN :]), board_nonce)
    # a paired host's id: this connection keeps its slot while it proves (Session.claimed)
    s.proving_at = s.board.clock.ticks_ms() if s.board.find_host(s.auth[0]) is not None else None
    s._reply(P.RSP | P.REQ_AUTH_START, board_nonce)


def auth_proof(s, fr):
    b = s.board
    if len(fr.payload) != P.KEY_LEN:
        raise ValueError("auth proof needs a 32-byte proof")
    wait = s.backoff_ms()
    if wait:
        return s._error(P.E_BACKOFF, fr.type, fr.seq, wait)
    a = s.auth
    if a is None:
        return s._error(P.E_STATE, fr.type, fr.seq, 0, "send AUTH_START first")
    s.auth = None  # a challenge answers one proof only
    host = b.find_host(a[0])
    key = host[1] if host is not None else b.urandom(P.KEY_LEN)
    host_proof, board_proof, skey = auth_proofs(key, a[0], a[1], a[2])
    if host is None or not equal(host_proof, fr.payload):
        s.failed()  # this connection backs off; other connections (the owner's) do not
        return s._error(P.E_DENIED, fr.type, fr.seq, s.backoff_ms())
    s.fails = 0
    s.fail_at = None
    s.proving_at = None
    s.host_id = a[0]
    s.last_seq = 0
    # The reply is MAC'd with the new session key, so it proves the board knows it too.
    # One key both ways (the direction byte is in every tag): one Mac object, 240 B on the
    # 32-bit board model, serves both (``Session.mac_in``).
    s.mac_in = Mac(skey)
    s.seq_out = 0
    s._reply(P.RSP | P.REQ_AUTH_PROOF, board_proof)
