"""Hypothesis fuzzing of the frame parser and the board's request handler (CPython)."""

import struct

from bg import link as P
from bg.link.session import Session
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from link_helpers import make_board, paired_session, snapshot

FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

frames = st.tuples(
    st.integers(0, 255),
    st.integers(0, 0xFFFF),
    st.binary(max_size=P.MAX_PAYLOAD),
    st.sampled_from([0, P.FLAG_LAST]),
)


def _all(dec):
    out = []
    r = dec.next()
    while r is not None:
        out.append(r)
        r = dec.next()
    return out


@FAST
@given(st.binary(max_size=3000))
def test_decoder_is_total(data):
    d = P.Decoder()
    i = 0
    while i < len(data):
        i += d.feed(data, i)
        for kind, val in _all(d):
            assert kind == P.BAD and isinstance(val, int) or isinstance(val, P.Frame)
    assert d.pending() <= P.MAX_FRAME


@FAST
@given(st.lists(frames, max_size=6), st.lists(st.integers(1, 600), max_size=20))
def test_any_split_gives_the_same_frames(fs, cuts):
    stream = b"".join(P.encode_frame(t, s, p, fl) for t, s, p, fl in fs)
    d = P.Decoder()
    got = []
    i = 0
    for c in cuts + [len(stream)]:
        piece = stream[i : i + c]
        i += len(piece)
        j = 0
        while j < len(piece):
            j += d.feed(piece, j)
            got.extend(_all(d))
    assert [(fr.type, fr.seq, fr.payload, fr.flags) for _, fr in got] == [(t, s, p, fl) for t, s, p, fl in fs]


@FAST
@given(st.binary(min_size=1, max_size=200), st.binary(max_size=200))
def test_garbage_before_a_frame_never_hides_it(noise, payload):
    good = P.encode_frame(P.REQ_INFO, 5, payload)
    d = P.Decoder()
    d.feed(noise)
    _all(d)
    d.feed(bytes(P.MAX_FRAME))  # a partial fake frame inside the noise is flushed by zeros
    _all(d)
    d.feed(good)
    r = _all(d)
    assert r and r[-1][0] == P.REQ_INFO and r[-1][1].payload == payload


def _replies(s):
    d = P.Decoder()
    out = []
    f = s.pump()
    while f is not None:
        d.feed(f)
        r = _all(d)
        assert len(r) == 1 and r[0][0] != P.BAD
        out.append(r[0][1])
        f = s.pump()
    return out


@FAST
@given(st.lists(st.binary(max_size=300), max_size=8))
def test_unauthenticated_session_survives_anything(chunks):
    b = make_board()
    s = Session(b, 185)
    for c in chunks:
        before = snapshot(b, s)
        s.feed(c)
        rs = _replies(s)
        if rs and all(r.type == P.ERROR for r in rs):
            assert snapshot(b, s) == before
    assert s.mac_in is None


@FAST
@given(st.lists(st.tuples(st.integers(0, 0x7F), st.binary(max_size=64)), min_size=1, max_size=12))
def test_request_handler_with_valid_macs(reqs):
    """Correctly signed requests of any type and payload: each gets exactly one reply or none
    (ACK), never an exception; a refused one changes nothing but the sequence number."""
    b, s, h, _ = paired_session()
    for t, payload in reqs:
        if t in (P.REQ_UNPAIR,):
            continue  # a valid unpair legitimately ends the session
        before = snapshot(b, s)
        s.feed(h.request(t, payload))
        rs = []
        f = s.pump()
        while f is not None:
            rs.extend(h.feed(f))
            f = s.pump()
        assert all(r[0] != P.ERROR or P.parse_error(r[1])[0] not in (P.E_MAC, P.E_SEQ) for r in rs)
        if rs and rs[0][0] == P.ERROR:
            after = snapshot(b, s)
            assert after[:5] + after[6:] == before[:5] + before[6:]
    assert s.mac_in is not None


@FAST
@given(st.integers(0, 0xFFFFFFFF), st.integers(0, 0xFFFFFFFF), st.integers(0, 255))
def test_fetch_any_range(off, ln, credits):
    b, s, h, _ = paired_session()
    s.feed(h.request(P.REQ_FETCH, b"MATCH001" + struct.pack("<IIB", off, ln, credits)))
    data = b""
    f = s.pump()
    first = None
    while f is not None:
        for t, p, _ in h.feed(f):
            if first is None:
                first = t
            if t == P.DATA:
                data += p[4:]
        f = s.pump()
    whole = b.store.read_match(b"MATCH001", 0, 10000)
    if off > len(whole):
        assert first == P.ERROR
    else:
        assert first == P.RSP | P.REQ_FETCH
        n = (credits or 8) * s.chunk_size()
        assert data == whole[off : off + min(ln, n)]
