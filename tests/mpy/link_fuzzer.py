"""The random-frame generator and checker behind tests/mpy/test_link_fuzz.py (kept in its
own module so the test compiles the firmware first, while the 64k heap is still empty)."""

import gc
import struct

from bg import link as P
from bg.link import crypto
from bg.link.board import Board
from bg.link.session import Session
from bg.link.store import MemoryStore
from link_fakes import Clock, Rand

FRAMES = 100000
ZEROS = bytes(P.MAX_FRAME)  # flushes a truncated frame out of the decoder; allocated once


class XorShift:
    """Fast deterministic generator (the fuzz volume makes SHA-256 too slow here)."""

    def __init__(self, seed):
        self.s = seed

    def next(self):
        x = self.s
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self.s = x
        return x

    def below(self, n):
        return self.next() % n

    def bytes(self, n):
        b = bytearray(n)
        for i in range(n):
            b[i] = self.next() & 0xFF
        return b


def _board():
    st = MemoryStore(b"BOARDFZZ", "Fuzz")
    st.add(b"MATCH001", b"m" * 300, P.STATE_FINISHED, b"S" * 32)
    st.add(b"MATCH002", b"live", P.STATE_LIVE, b"T" * 32)
    b = Board(st, Clock(), Rand(b"fz"), show_code=None)
    b.hosts = [(b"HOST0001", b"K" * 32, "laptop")]
    return b


def _auth(board, s):
    """Authenticate ``s`` as HOST0001 (the host's computation, done by hand)."""
    hn = b"N" * 16
    s.feed(P.encode_frame(P.REQ_AUTH_START, 1, b"HOST0001" + hn))
    f = s.pump()
    d = P.Decoder()
    d.feed(f)
    ch = d.next()[1].payload
    hp, bp, skey = crypto.auth_proofs(b"K" * 32, b"HOST0001", hn, ch)
    s.feed(P.encode_frame(P.REQ_AUTH_PROOF, 2, hp))
    assert s.pump() is not None and s.mac_in is not None
    return crypto.Mac(skey)


def _snap(board, s):
    st = board.store
    return (
        len(st.matches),
        st.get_name(),
        len(board.hosts),
        board.clock.unix,
        s.last_seq,
        s.host_id,
        s.watching,
        s.xfer is None,
        s.mac_in is None,
        board.pairing is None,
    )


def _frame(rng, mac, seq_base):
    kind = rng.below(10)
    t = rng.below(0x80)
    n = rng.below(48)
    payload = rng.bytes(n)
    if kind < 5:  # well-formed frame, random content; with a random (wrong) MAC half the time
        flags = P.FLAG_MAC if rng.below(2) else 0
        head = struct.pack("<BBBHH", P.SYNC, t, flags, seq_base + rng.below(50), n)
        body = head + payload + (rng.bytes(8) if flags else b"")
        c = P.crc16(body)
        return body + bytes([c & 0xFF, c >> 8])
    if kind < 7:  # a genuine request replayed with a bad MAC or a stale sequence number
        f = bytearray(P.encode_frame(t, seq_base - rng.below(3), payload, 0, mac, b"H"))
        i = 7 + rng.below(len(f) - 9) if len(f) > 9 else 3
        f[i] ^= 1 << rng.below(8)
        c = P.crc16(f, 0, len(f) - 2)
        f[-2], f[-1] = c & 0xFF, c >> 8
        return bytes(f)
    if kind < 9:  # bit flip or truncation of a frame (CRC fails or the frame never completes)
        f = bytearray(P.encode_frame(t, rng.below(65536), payload))
        if rng.below(2):
            f[rng.below(len(f))] ^= 1 << rng.below(8)
            return bytes(f)
        return (bytes(f[: rng.below(len(f))]), ZEROS)  # a partial frame, then zeros flush it
    return bytes(rng.bytes(1 + rng.below(30)))  # noise


def _run(authenticated, count, seed):
    board = _board()
    s = Session(board, 185)
    mac = _auth(board, s) if authenticated else None
    rng = XorShift(seed)
    dec = P.Decoder()
    errors = 0
    for i in range(count):
        before = _snap(board, s)
        fails = s.fails
        f = _frame(rng, mac, s.last_seq + 1)
        if isinstance(f, tuple):
            s.feed(f[0])
            f = f[1]
        s.feed(f)
        got_error = False
        got_ok = False
        out = s.pump()
        while out is not None:
            dec.feed(out)
            r = dec.next()
            assert r is not None and r[0] != P.BAD, "the board sent a malformed frame"
            if r[0] == P.ERROR:
                got_error = True
                code = P.parse_error(r[1].payload)[0]
                assert 1 <= code <= P.E_FULL
            else:
                got_ok = True
            assert dec.next() is None
            out = s.pump()
        if got_error and not got_ok:
            errors += 1
            assert _snap(board, s) == before, (i, f)
            assert s.fails in (fails, fails + 1)
        if authenticated:
            assert s.mac_in is not None  # no forged frame can log the session out
        if s.fail_at is not None:
            s.fails = 0  # keep proofs being checked rather than backed off
            s.fail_at = None
        if i % 500 == 0:
            gc.collect()
    assert len(board.store.matches) == 2 and board.hosts[0][0] == b"HOST0001"
    return errors


def random_frames_unauthenticated():
    errors = _run(False, FRAMES // 2, 0x1234567)
    assert errors > FRAMES // 4


def random_frames_authenticated():
    errors = _run(True, FRAMES // 2, 0x7654321)
    assert errors > FRAMES // 4
