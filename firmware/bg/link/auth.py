"""Link requests allowed before authentication: board info, pairing, challenge-response.

Functions ``f(session, frame)`` dispatched by ``bg.link.session``; each checks everything
before it changes anything.
"""

import struct

from bg.link import (
    E_BACKOFF,
    E_BUSY,
    E_DENIED,
    E_FULL,
    E_PAIRING,
    E_STATE,
    ID_LEN,
    KEY_LEN,
    MAX_HOSTS,
    MAX_NAME,
    MAX_PAYLOAD,
    NONCE_LEN,
    PAIR_CODE_MS,
    PROTO_VERSION,
    PUB_LEN,
    REQ_AUTH_PROOF,
    REQ_AUTH_START,
    REQ_INFO,
    REQ_PAIR_CONFIRM,
    REQ_PAIR_START,
    RSP,
    check_name,
)
from bg.link.crypto import (
    DH_P,
    Mac,
    auth_proofs,
    code_from_random,
    dh_keypair,
    dh_shared,
    equal,
    pair_keys,
    pair_transcript,
)


def info(s, fr):
    b = s.board
    name = b.store.get_name().encode()[:MAX_NAME]
    fw = b.firmware.encode()[:16]
    flags = (1 if s.mac_in is not None else 0) | (2 if b.pairing_open() else 0)
    p = struct.pack("<BBHB", PROTO_VERSION, flags, MAX_PAYLOAD, len(b.hosts))
    p += b.store.board_id() + bytes([len(name)]) + name + bytes([len(fw)]) + fw
    s._reply(RSP | REQ_INFO, p)


def pair_start(s, fr):
    b = s.board
    p = fr.payload
    if len(p) < ID_LEN + NONCE_LEN + PUB_LEN + 1:
        raise ValueError("pair start needs host id, nonce, public value and name")
    name = check_name(p[ID_LEN + NONCE_LEN + PUB_LEN :])
    wait = b.backoff_ms()
    if wait:
        return s._error(E_BACKOFF, fr.type, fr.seq, wait)
    if not b.pairing_open():
        return s._error(E_PAIRING, fr.type, fr.seq, 0, "pairing is closed: press the pair combo")
    if (
        b.pairing is not None
        and b.pairing[0] is not s
        and b.clock.ticks_diff(b.clock.ticks_ms(), b.pairing[2]) < PAIR_CODE_MS
    ):
        return s._error(E_BUSY, fr.type, fr.seq, 0, "another pairing is in progress")
    host_id = bytes(p[:ID_LEN])
    host_nonce = bytes(p[ID_LEN : ID_LEN + NONCE_LEN])
    host_pub = bytes(p[ID_LEN + NONCE_LEN : ID_LEN + NONCE_LEN + PUB_LEN])
    y = int.from_bytes(host_pub, "big")
    if y < 2 or y > DH_P - 2:
        raise ValueError("bad public value")
    x, board_pub = dh_keypair(b.urandom)
    board_nonce = b.urandom(NONCE_LEN)
    code = code_from_random(b.urandom)
    tr = pair_transcript(host_id, host_nonce, board_nonce, host_pub, board_pub)
    shared = dh_shared(x, host_pub)
    b.pairing = (s, code, b.clock.ticks_ms(), shared, host_id, name, tr)
    if b.show_code:
        b.show_code(code)
    s._reply(RSP | REQ_PAIR_START, board_nonce + board_pub)


def pair_confirm(s, fr):
    b = s.board
    if len(fr.payload) != KEY_LEN:
        raise ValueError("pair confirm needs a 32-byte proof")
    wait = b.backoff_ms()
    if wait:
        return s._error(E_BACKOFF, fr.type, fr.seq, wait)
    pr = b.pairing
    if pr is None or pr[0] is not s or b.clock.ticks_diff(b.clock.ticks_ms(), pr[2]) >= PAIR_CODE_MS:
        return s._error(E_PAIRING, fr.type, fr.seq)
    host_proof, board_proof, key = pair_keys(pr[3], pr[6], pr[1])
    # One guess per displayed code: right or wrong, this pairing attempt is over.
    b.cancel_pairing()
    if not equal(host_proof, fr.payload):
        b.failed()
        return s._error(E_DENIED, fr.type, fr.seq, b.backoff_ms())
    if len(b.hosts) >= MAX_HOSTS and b.find_host(pr[4]) is None:
        return s._error(E_FULL, fr.type, fr.seq)
    b.add_host(pr[4], key, pr[5])
    b.fails = 0
    s._reply(RSP | REQ_PAIR_CONFIRM, board_proof)


def auth_start(s, fr):
    b = s.board
    if len(fr.payload) != ID_LEN + NONCE_LEN:
        raise ValueError("auth start needs host id and nonce")
    wait = b.backoff_ms()
    if wait:
        return s._error(E_BACKOFF, fr.type, fr.seq, wait)
    board_nonce = b.urandom(NONCE_LEN)
    s._logout()
    s.auth = (bytes(fr.payload[:ID_LEN]), bytes(fr.payload[ID_LEN:]), board_nonce)
    s._reply(RSP | REQ_AUTH_START, board_nonce)


def auth_proof(s, fr):
    b = s.board
    if len(fr.payload) != KEY_LEN:
        raise ValueError("auth proof needs a 32-byte proof")
    wait = b.backoff_ms()
    if wait:
        return s._error(E_BACKOFF, fr.type, fr.seq, wait)
    a = s.auth
    if a is None:
        return s._error(E_STATE, fr.type, fr.seq, 0, "send AUTH_START first")
    s.auth = None  # a challenge answers one proof only
    host = b.find_host(a[0])
    key = host[1] if host is not None else b.urandom(KEY_LEN)
    host_proof, board_proof, skey = auth_proofs(key, a[0], a[1], a[2])
    if host is None or not equal(host_proof, fr.payload):
        b.failed()
        return s._error(E_DENIED, fr.type, fr.seq, b.backoff_ms())
    b.fails = 0
    s.host_id = a[0]
    s.key = key
    s.last_seq = 0
    # The reply is MAC'd with the new session key, so it proves the board knows it too.
    s.mac_in = Mac(skey)
    s.mac_out = Mac(skey)
    s.seq_out = 0
    s._reply(RSP | REQ_AUTH_PROOF, board_proof)
