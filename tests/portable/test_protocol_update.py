"""The link's firmware-update requests (FW_BEGIN / FW_CHUNK / FW_COMMIT): only a paired host may
send, the signature is checked whatever the host, a malformed request changes nothing."""

# mpy-heap: 128k
# Both ends of a session, the signer and the verifier in one interpreter: the 64-bit port with
# the firmware in its ROM image passes from 92k (measured with the bridge's run_module in 4k
# steps), declared + 8k; on the board model it runs at the board's 64k (free 40k at the end).

import gc

from link_fakes import roomy, skip_all

if roomy(120000, 90000):
    import struct

    gc.collect()
    import update_helpers
    from bg import link as P
    from bg.link.session import Session
    from bg.update import boot
    from bg.update.bundle import bundle_id, header_len
    from bg.update.slots import Updater
    from link_helpers import error_code, exchange, make_board, one, paired_session


def _call(s, h, t, payload):
    r = exchange(s, h, h.request(t, payload))
    assert len(r) == 1, r
    return r[0][0], r[0][1]


def _begin(blob):
    return bundle_id(blob[: header_len(blob)]) + struct.pack("<I", len(blob))


def _send(s, h, blob, start=0, end=None, step=100):
    end = len(blob) if end is None else end
    off = start
    while off < end:
        k = min(step, end - off)
        t, p = _call(s, h, P.REQ_FW_CHUNK, struct.pack("<I", off) + blob[off : off + k])
        assert t == P.RSP | P.REQ_FW_CHUNK, P.parse_error(p)
        off = struct.unpack("<I", p)[0]
    return off


def test_update_through_the_link_then_reconnect_resumes():
    r = update_helpers.root()
    try:
        b, s, h, _ = paired_session()
        b.updater = Updater(r, [""], update_helpers.pub())
        blob = update_helpers.make("2.1.0", n=2, size=120)
        t, p = _call(s, h, P.REQ_FW_BEGIN, _begin(blob))
        assert t == P.RSP | P.REQ_FW_BEGIN and struct.unpack("<II", p) == (0, len(blob))
        half = _send(s, h, blob, 0, len(blob) // 2)
        s.close()  # the connection drops
        s2, h2 = paired_again(b)
        t, p = _call(s2, h2, P.REQ_FW_BEGIN, _begin(blob))
        assert struct.unpack("<II", p) == (half, len(blob))  # from the last chunk stored
        _send(s2, h2, blob, half)
        t, p = _call(s2, h2, P.REQ_FW_COMMIT, b"")
        assert t == P.RSP | P.REQ_FW_COMMIT and p == b"2.1.0"
        assert boot.read_state(r) == ("-", "a", 0)
    finally:
        update_helpers.rm(r)


def paired_again(b):
    from bg.link.host import HostEnd
    from link_fakes import Rand
    from link_helpers import HOST_ID, auth

    s = Session(b, 185)
    h = HostEnd(Rand(b"host2"))
    auth(s, h, b.find_host(HOST_ID)[1])
    return s, h


def test_stranger_cannot_update_and_signature_is_checked_for_paired_hosts():
    r = update_helpers.root()
    try:
        b = make_board(b"board")
        b.updater = Updater(r, [""], update_helpers.pub())
        from bg.link.host import HostEnd
        from link_fakes import Rand

        s = Session(b, 185)
        h = HostEnd(Rand(b"x"))
        blob = update_helpers.make(n=2, size=120)
        for t, pl in ((P.REQ_FW_BEGIN, _begin(blob)), (P.REQ_FW_CHUNK, bytes(8)), (P.REQ_FW_COMMIT, b"")):
            assert error_code(one(s, h, h.request(t, pl))) == P.E_AUTH
        assert b.updater.id is None
        # a paired host with a bundle signed by another key: refused at the header
        b, s, h, _ = paired_session()
        b.updater = Updater(r, [""], update_helpers.pub())
        forged = update_helpers.make("9.9.9", b"evil", seed=bytes(32), n=2, size=120)
        _call(s, h, P.REQ_FW_BEGIN, _begin(forged))
        hl = header_len(forged)
        t, p = _call(s, h, P.REQ_FW_CHUNK, struct.pack("<I", 0) + forged[:hl])
        assert t == P.ERROR and P.parse_error(p)[0] == P.E_PAYLOAD and "signature" in P.parse_error(p)[4]
        assert error_code(_call(s, h, P.REQ_FW_COMMIT, b"")) == P.E_PAYLOAD
        assert boot.read_state(r) == ("-", "-", 0)
        # malformed requests
        assert error_code(_call(s, h, P.REQ_FW_BEGIN, b"short")) == P.E_PAYLOAD
        assert error_code(_call(s, h, P.REQ_FW_CHUNK, b"\x00\x00")) == P.E_PAYLOAD
        assert error_code(_call(s, h, P.REQ_FW_COMMIT, b"x")) == P.E_PAYLOAD
        # a board without an updater says so
        b.updater = None
        assert error_code(_call(s, h, P.REQ_FW_BEGIN, _begin(blob))) == P.E_STATE
    finally:
        update_helpers.rm(r)


if not roomy(120000, 90000):
    skip_all(globals())
