"""Dice players can trust: unbiased faces, per-roll HMAC-SHA-256 derivation, commit-reveal.

The board never "rolls" with a fresh random number. At the start of a match it draws a secret
32-byte *board seed* from the hardware RNG, publishes a *commitment* (SHA-256 over a domain tag,
the match id and the seed), and fixes an optional 16-byte *player seed* (typed in the host tool,
or mixed from button timing) before the first throw. Throw number ``k`` of the match (opening
throws included) is then::

    block0 = HMAC-SHA-256(key=board_seed, msg=match_id(8) || player_seed(16) || k(4, big-endian))
    blockJ = HMAC-SHA-256(key=board_seed, msg=block(J-1))       # only if block0 ran out
    faces  = bytes b < 252 in order, face = b % 6 + 1            # 252..255 are rejected

After the match (never before) the board reveals the seed and anyone can re-derive every throw
with :func:`verify_transcript`. ``docs/dice.md`` is the authoritative byte layout.

This module is the derivation (pure functions, used on the board and by ``gammon verify``);
:mod:`bg.dice.fairness` holds one match's secret and life cycle (``Fairness``), :mod:`bg.dice.cup`
the opening-roll rules (``Opening``).

Example::

    >>> derive_rolls(bytes(8), bytes(32), None, 3)
    [(2, 4), (6, 2), (1, 6)]

Portable: runs unchanged on MicroPython (``hashlib.sha256`` only; there is no ``hmac`` module
there) and CPython.
"""

import hashlib

from micropython import const

MATCH_ID_LEN = const(8)
BOARD_SEED_LEN = const(32)
PLAYER_SEED_LEN = const(16)
COMMIT_LEN = const(32)
MAX_COUNTER = const(0xFFFFFFFF)

# 252 = 42 * 6 is the largest multiple of 6 not above 256: bytes 0..251 map 42 to each face,
# bytes 252..255 are thrown away. Taking b % 6 of every byte would favour faces 1..4 (43/256)
# over 5 and 6 (42/256) -- the modulo bias this module exists to avoid.
_ACCEPT_BELOW = const(252)
_BLOCK = const(64)  # SHA-256 block size, for HMAC's key pads
_MSG_LEN = const(28)  # match id 8 + player seed 16 + counter 4

_COMMIT_TAG = const(b"smartgammon-commit-v1")
_PLAYER_TAG = const(b"smartgammon-player-v1")
_SEED_TAG = const(b"smartgammon-seed-v2")

# Who gave a player-seed contribution (record SEED_PART, docs/dice.md)
SRC_HOST = const(1)  # a paired host over the link (16 random bytes, or a phrase's hash)
SRC_BUTTONS = const(2)  # button timing measured by the board (only when no host gave a part)
_MAX_PARTS = const(8)  # contributions per match

NO_PLAYER_SEED = bytes(PLAYER_SEED_LEN)


def _check_len(name, value, n):
    if not isinstance(value, (bytes, bytearray)) or len(value) != n:
        raise ValueError("%s must be %d bytes" % (name, n))


class SeedMixer:
    """The player seed of a commit-first match: ``SHA-256(_SEED_TAG || src1(1) || part1(16) ||
    src2(1) || part2(16) ...)[:16]`` over the contributions in journal order; none at all
    gives 16 zero bytes (the board alone chose the dice).

    The rule that makes a host's part worth anything: nothing the board controls may enter
    after it, or a modified board could grind that later part until the throws suit it. A
    board-measured part (button timing) after a host's part is still hashed (so journals from
    before the rule keep deriving the same dice) but sets ``late``: ``Fairness`` never writes
    one and ``gammon verify`` fails a journal that has one."""

    def __init__(self):
        self._h = hashlib.sha256(_SEED_TAG)
        self.count = 0
        self.hosts = 0  # host parts so far
        self.late = False  # a board-measured part came after a host's part
        self.closed = False  # button timing is in: no more contributions

    def add(self, source, part):
        if self.closed:
            raise ValueError("the player seed is already fixed")
        if source != SRC_HOST and source != SRC_BUTTONS:
            raise ValueError("unknown player seed source %r" % (source,))
        _check_len("player seed part", part, PLAYER_SEED_LEN)
        if self.count >= _MAX_PARTS:
            raise ValueError("too many player seed contributions")
        self._h.update(bytes((source,)))
        self._h.update(part)
        self.count += 1
        if source == SRC_HOST:
            self.hosts += 1
        else:
            self.late = self.late or self.hosts > 0
            self.closed = True

    def digest(self):
        """The player seed (finalises the mixer)."""
        self.closed = True
        return self._h.digest()[:PLAYER_SEED_LEN] if self.count else NO_PLAYER_SEED


def face_from_byte(b):
    """The die face (1..6) a byte gives, or 0 when the byte is rejected (252..255).

    >>> face_from_byte(0), face_from_byte(251), face_from_byte(252)
    (1, 6, 0)
    """
    if b < _ACCEPT_BELOW:
        return b % 6 + 1
    return 0


def faces_from_bytes(data, out, start=0):
    """Fill ``out[start:]`` with faces taken in order from ``data`` by rejection sampling.

    Returns the index in ``out`` after the last face written: ``len(out)`` when ``data`` had
    enough accepted bytes, less when it ran out (the caller then feeds the next block).
    Allocates nothing.
    """
    i = start
    n = len(out)
    for b in data:
        if i >= n:
            break
        if b < _ACCEPT_BELOW:
            out[i] = b % 6 + 1
            i += 1
    return i


def _pads(key):
    if len(key) > _BLOCK:
        key = hashlib.sha256(key).digest()
    ipad = bytearray(_BLOCK)
    opad = bytearray(_BLOCK)
    for i in range(_BLOCK):
        k = key[i] if i < len(key) else 0
        ipad[i] = k ^ 0x36
        opad[i] = k ^ 0x5C
    return bytes(ipad), bytes(opad)


def _hmac_pads(ipad, opad, msg):
    h = hashlib.sha256(ipad)
    h.update(msg)
    inner = h.digest()
    h = hashlib.sha256(opad)
    h.update(inner)
    return h.digest()


def hmac_sha256(key, msg):
    """HMAC-SHA-256 (RFC 2104) on ``hashlib.sha256``: MicroPython has no ``hmac`` module.

    >>> hmac_sha256(b"key", b"The quick brown fox jumps over the lazy dog").hex()[:16]
    'f7bc83f430538424'
    """
    ipad, opad = _pads(key)
    return _hmac_pads(ipad, opad, msg)


def commitment(match_id, board_seed):
    """``SHA-256(_COMMIT_TAG || match_id || board_seed)``: published before the first throw."""
    _check_len("match id", match_id, MATCH_ID_LEN)
    _check_len("board seed", board_seed, BOARD_SEED_LEN)
    h = hashlib.sha256(_COMMIT_TAG)
    h.update(match_id)
    h.update(board_seed)
    return h.digest()


def player_seed_from_text(text):
    """The 16-byte player seed for a phrase typed in the host tool:
    ``SHA-256(_PLAYER_TAG || utf-8 text)[:16]``. Any text works, including an empty one."""
    if isinstance(text, str):
        text = text.encode("utf-8")
    h = hashlib.sha256(_PLAYER_TAG)
    h.update(text)
    return h.digest()[:PLAYER_SEED_LEN]


class DiceStream:
    """The derivation alone: throw ``k`` of a match from its seeds. No secrecy, no gating --
    :class:`Fairness` adds those; :func:`verify_transcript` and the statistics use this.

    ``derive(k)`` writes the two faces of throw ``k`` into the preallocated ``dice``
    bytearray and returns it; the only allocation is inside ``hashlib`` (two hash objects and
    two 32-byte digests per throw, see tools/bench/dice.py).

    >>> s = DiceStream(bytes(8), bytes(32))
    >>> list(s.derive(0))
    [2, 4]
    """

    def __init__(self, match_id, board_seed, player_seed=None):
        _check_len("match id", match_id, MATCH_ID_LEN)
        _check_len("board seed", board_seed, BOARD_SEED_LEN)
        if not player_seed:  # None or empty (a journal without one): sixteen zero bytes
            player_seed = NO_PLAYER_SEED
        _check_len("player seed", player_seed, PLAYER_SEED_LEN)
        self._ipad, self._opad = _pads(board_seed)
        msg = bytearray(_MSG_LEN)
        msg[0:8] = match_id
        msg[8:24] = player_seed
        self._msg = msg
        self.dice = bytearray(2)

    def derive(self, k):
        """The two faces of throw ``k`` (0-based counter) in ``self.dice`` (overwritten)."""
        if k < 0 or k > MAX_COUNTER:
            raise ValueError("throw counter out of range")
        msg = self._msg
        msg[24] = k >> 24
        msg[25] = (k >> 16) & 0xFF
        msg[26] = (k >> 8) & 0xFF
        msg[27] = k & 0xFF
        block = _hmac_pads(self._ipad, self._opad, msg)
        n = faces_from_bytes(block, self.dice, 0)
        # 31 of 32 bytes rejected has probability ~1e-54; the chain keeps the rule total.
        while n < 2:
            block = _hmac_pads(self._ipad, self._opad, block)
            n = faces_from_bytes(block, self.dice, n)
        return self.dice


def derive_rolls(match_id, board_seed, player_seed, count):
    """The first ``count`` throws of a match as a list of ``(d1, d2)`` tuples (host helper)."""
    s = DiceStream(match_id, board_seed, player_seed)
    out = []
    for k in range(count):
        d = s.derive(k)
        out.append((d[0], d[1]))
    return out


# Verification ----------------------------------------------------------------------------


def verify_transcript(match_id, commitment_, board_seed, player_seed, rolls):
    """Check a match's dice against its revealed seed.

    ``rolls``: every throw in counter order, opening throws included, each ``(d1, d2)`` as
    recorded. Returns ``(ok, index, message)``: ``index`` is the first throw that does not
    match, or -1 when the failure is not about one throw (commitment, seed) or when ``ok``.

    >>> mid, seed = bytes(8), bytes(32)
    >>> verify_transcript(mid, commitment(mid, seed), seed, None, [(2, 4)])
    (True, -1, 'PASS: commitment and all 1 throws match')
    """
    try:
        _check_len("match id", match_id, MATCH_ID_LEN)
        _check_len("board seed", board_seed, BOARD_SEED_LEN)
        _check_len("commitment", commitment_, COMMIT_LEN)
        if player_seed:
            _check_len("player seed", player_seed, PLAYER_SEED_LEN)
    except ValueError as e:
        return False, -1, "FAIL: " + str(e)
    if commitment(match_id, board_seed) != bytes(commitment_):
        return False, -1, "FAIL: the revealed seed does not match the commitment"
    s = DiceStream(match_id, board_seed, player_seed)
    n = 0
    for k, r in enumerate(rolls):
        d = s.derive(k)
        ok = len(r) == 2
        if ok:
            ok = r[0] == d[0] and r[1] == d[1]
        if not ok:
            return (
                False,
                k,
                "FAIL: throw %d recorded %s, derived %d-%d" % (k, "-".join(str(x) for x in r), d[0], d[1]),
            )
        n += 1
    return True, -1, "PASS: commitment and all %d throws match" % n
