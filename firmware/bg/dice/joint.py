"""Dice for a match between two boards that neither board can bias.

Each board commits to its own secret seed (``bg.dice.commitment`` over its own match id and
seed, journaled and published before anything else of the match is known). Once both
commitments are known, the two hosts' player seed parts are mixed into one *joint player
seed* (``bg.dice.SeedMixer``: side 0's host's part, then side 1's). Throw ``k`` is::

    joint_id = SHA-256("smartgammon-joint-v1" || commitment0 || commitment1)[:8]
    share_i  = HMAC-SHA-256(key=seed_i, msg=joint_id(8) || player_seed(16) || k(4) || i(1))
    block0   = share_0 XOR share_1
    blockJ   = SHA-256(block(J-1))           # only if block0 gave fewer than two faces
    faces    = bytes b < 252 in order, face = b % 6 + 1       # bg.dice's rejection rule

Each board sends its share of throw ``k`` when the throw is due; the shares reveal nothing
about the seeds (HMAC is a PRF) and each is fixed by its board's commitment, so the board
that sends second can only withhold its share (detectable: the match stops), not choose it:
after the match both seeds are revealed and ``bg.dice.joint_verify.verify_joint`` re-derives every share and
throw. The side byte ``i`` keeps one board's share from being the other's even when a board
copies the other's commitment (two equal commitments are refused as well): with equal keys
and no side byte the two shares would cancel out to zero, all throws 1-1.

Portable: CPython and MicroPython (``hashlib.sha256`` and ``bg.dice`` only).
"""

import hashlib

from micropython import const

from bg import dice as _d

SHARE_LEN = const(32)
JOINT_ID_LEN = const(8)
_MSG_LEN = const(29)  # joint id 8 + player seed 16 + counter 4 + side 1
_JOINT_TAG = const(b"smartgammon-joint-v1")


def joint_id(commit0, commit1):
    """The match's joint id: both boards' commitments, side 0's first. Refuses equal ones
    (a board that copied the other's commitment)."""
    _d._check_len("commitment", commit0, _d.COMMIT_LEN)
    _d._check_len("commitment", commit1, _d.COMMIT_LEN)
    if bytes(commit0) == bytes(commit1):
        raise ValueError("both boards sent the same commitment")
    h = hashlib.sha256(_JOINT_TAG)
    h.update(commit0)
    h.update(commit1)
    return h.digest()[:JOINT_ID_LEN]


class Share:
    """One board's shares: ``share(k)`` is the 32 bytes board ``side`` sends for throw ``k``
    (``bg.dice.DiceStream``'s shape: the key pads and message are made once). ``pads``: the
    HMAC key pads of ``seed`` when the caller holds them already (``Fairness.pads``: the
    board's own dice stream is keyed by the same seed), then ``seed`` may be None -- one copy
    of the pads in the board's heap, not two."""

    def __init__(self, jid, side, seed, player_seed=None, pads=None):
        _d._check_len("joint id", jid, JOINT_ID_LEN)
        if pads is None:
            _d._check_len("board seed", seed, _d.BOARD_SEED_LEN)
            pads = _d._pads(seed)
        if side != 0 and side != 1:
            raise ValueError("side must be 0 or 1")
        if not player_seed:
            player_seed = bytes(_d.PLAYER_SEED_LEN)
        _d._check_len("player seed", player_seed, _d.PLAYER_SEED_LEN)
        self._ipad, self._opad = pads
        msg = bytearray(_MSG_LEN)
        msg[0:8] = jid
        msg[8:24] = player_seed
        msg[28] = side
        self._msg = msg

    def share(self, k):
        if k < 0 or k > _d.MAX_COUNTER:
            raise ValueError("throw counter out of range")
        msg = self._msg
        msg[24] = k >> 24
        msg[25] = (k >> 16) & 0xFF
        msg[26] = (k >> 8) & 0xFF
        msg[27] = k & 0xFF
        return _d._hmac_pads(self._ipad, self._opad, msg)


def combine(share0, share1, out=None):
    """The two faces (``out``, a 2-byte bytearray, or a new one) of the throw whose shares
    are ``share0`` (side 0's board) and ``share1``."""
    _d._check_len("share", share0, SHARE_LEN)
    _d._check_len("share", share1, SHARE_LEN)
    if out is None:
        out = bytearray(2)
    block = bytearray(SHARE_LEN)
    for i in range(SHARE_LEN):
        block[i] = share0[i] ^ share1[i]
    n = _d.faces_from_bytes(block, out, 0)
    # 31 of 32 bytes rejected: ~1e-54; hashing the block on keeps the rule total without
    # asking either board for more
    while n < 2:
        block = hashlib.sha256(block).digest()
        n = _d.faces_from_bytes(block, out, n)
    return out


class JointDice(Share):
    """One board's side of a joint match: its own seed (committed), the other board's
    commitment, the joint player seed and the throw counter (restored from the journal after
    a power cut, as ``Fairness``'s). ``share()`` is this board's share of the next throw --
    the same bytes however often it is asked, so asking again (or cutting the power) changes
    nothing; ``throw(other_share)`` the faces, once the other board's share came, and the
    counter moves on. The other board's share cannot be checked before its seed is revealed:
    ``bg.dice.joint_verify.verify_joint`` does that after the match. (A ``Share`` itself: one
    object in the board's heap, not two.)

    >>> import hashlib
    >>> from bg.dice import commitment
    >>> s0, s1 = hashlib.sha256(b"0").digest(), hashlib.sha256(b"1").digest()
    >>> c0, c1 = commitment(bytes(8), s0), commitment(bytes(8), s1)
    >>> a, b = JointDice(0, c0, s0, c1), JointDice(1, c1, s1, c0)
    >>> sa, sb = a.share(), b.share()    # each board's share of throw 0, exchanged
    >>> bytes(a.throw(sb)) == bytes(b.throw(sa)), a.counter
    (True, 1)
    """

    def __init__(self, side, own_commit, seed, other_commit, player_seed=None, counter=0, pads=None):
        if side == 0:
            jid = joint_id(own_commit, other_commit)
        else:
            jid = joint_id(other_commit, own_commit)
        Share.__init__(self, jid, side, seed, player_seed, pads)
        self.side = side
        self.counter = counter
        self.dice = bytearray(2)
        self._k = -1
        self._mine = None

    def share(self):  # pyright: ignore[reportIncompatibleMethodOverride]
        """This board's share of throw ``counter`` (computed once per throw)."""
        if self._k != self.counter:
            self._mine = Share.share(self, self.counter)
            self._k = self.counter
        return self._mine

    def share_of(self, k):
        """This board's share of throw ``k`` (an earlier one again, or the one due)."""
        return self.share() if k == self.counter else Share.share(self, k)

    def throw(self, other_share):
        """The faces of throw ``counter`` (``self.dice``, overwritten) from the other board's
        share; ValueError (nothing changes) for a share that is not 32 bytes."""
        mine = self.share()
        if self.side == 0:
            combine(mine, other_share, self.dice)
        else:
            combine(other_share, mine, self.dice)
        self.counter += 1
        return self.dice


class JointMatch:
    """One board's state of a match between two boards, from its JOINT_START on: the other
    board's commitment, the other board's share of a throw taken (``(k, share)``), whether a
    throw was asked for here and waits for that share (``due``) and, once the player seed is
    fixed, this board's ``JointDice`` and its board seed (``seed``: revealed at the match's end;
    the board keeps nothing else of its own dice stream then). The controller keeps this one
    object, not five attributes: its instance dict keeps its size in such a match
    (docs/memory.md)."""

    def __init__(self, commit):
        self.commit = commit
        self.other: "tuple | None" = None
        self.due = False
        self.dice: "JointDice | None" = None
        self.seed: "bytes | None" = None
