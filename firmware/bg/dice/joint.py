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
after the match both seeds are revealed and :func:`verify_joint` re-derives every share and
throw. The side byte ``i`` keeps one board's share from being the other's even when a board
copies the other's commitment (two equal commitments are refused as well): with equal keys
and no side byte the two shares would cancel out to zero, all throws 1-1.

Portable: CPython and MicroPython (``hashlib.sha256`` and ``bg.dice`` only).
"""

import hashlib

from micropython import const

from bg.dice import (
    BOARD_SEED_LEN,
    COMMIT_LEN,
    MATCH_ID_LEN,
    MAX_COUNTER,
    PLAYER_SEED_LEN,
    _check_len,
    _hmac_pads,
    _pads,
    commitment,
    faces_from_bytes,
)

SHARE_LEN = const(32)
JOINT_ID_LEN = const(8)
_MSG_LEN = const(29)  # joint id 8 + player seed 16 + counter 4 + side 1
_JOINT_TAG = const(b"smartgammon-joint-v1")


def joint_id(commit0, commit1):
    """The match's joint id: both boards' commitments, side 0's first. Refuses equal ones
    (a board that copied the other's commitment)."""
    _check_len("commitment", commit0, COMMIT_LEN)
    _check_len("commitment", commit1, COMMIT_LEN)
    if bytes(commit0) == bytes(commit1):
        raise ValueError("both boards sent the same commitment")
    h = hashlib.sha256(_JOINT_TAG)
    h.update(commit0)
    h.update(commit1)
    return h.digest()[:JOINT_ID_LEN]


class Share:
    """One board's shares: ``share(k)`` is the 32 bytes board ``side`` sends for throw ``k``
    (``bg.dice.DiceStream``'s shape: the key pads and message are made once)."""

    def __init__(self, jid, side, seed, player_seed=None):
        _check_len("joint id", jid, JOINT_ID_LEN)
        _check_len("board seed", seed, BOARD_SEED_LEN)
        if side != 0 and side != 1:
            raise ValueError("side must be 0 or 1")
        if not player_seed:
            player_seed = bytes(PLAYER_SEED_LEN)
        _check_len("player seed", player_seed, PLAYER_SEED_LEN)
        self._ipad, self._opad = _pads(seed)
        msg = bytearray(_MSG_LEN)
        msg[0:8] = jid
        msg[8:24] = player_seed
        msg[28] = side
        self._msg = msg

    def share(self, k):
        if k < 0 or k > MAX_COUNTER:
            raise ValueError("throw counter out of range")
        msg = self._msg
        msg[24] = k >> 24
        msg[25] = (k >> 16) & 0xFF
        msg[26] = (k >> 8) & 0xFF
        msg[27] = k & 0xFF
        return _hmac_pads(self._ipad, self._opad, msg)


def combine(share0, share1, out=None):
    """The two faces (``out``, a 2-byte bytearray, or a new one) of the throw whose shares
    are ``share0`` (side 0's board) and ``share1``."""
    _check_len("share", share0, SHARE_LEN)
    _check_len("share", share1, SHARE_LEN)
    if out is None:
        out = bytearray(2)
    block = bytearray(SHARE_LEN)
    for i in range(SHARE_LEN):
        block[i] = share0[i] ^ share1[i]
    n = faces_from_bytes(block, out, 0)
    # 31 of 32 bytes rejected: ~1e-54; hashing the block on keeps the rule total without
    # asking either board for more
    while n < 2:
        block = hashlib.sha256(block).digest()
        n = faces_from_bytes(block, out, n)
    return out


class JointDice:
    """One board's side of a joint match: its own seed (committed), the other board's
    commitment, the joint player seed and the throw counter (restored from the journal after
    a power cut, as ``Fairness``'s). ``share()`` is this board's share of the next throw --
    the same bytes however often it is asked, so asking again (or cutting the power) changes
    nothing; ``throw(other_share)`` the faces, once the other board's share came, and the
    counter moves on. The other board's share cannot be checked before its seed is revealed:
    ``verify_joint`` does that after the match.

    >>> import hashlib
    >>> s0, s1 = hashlib.sha256(b"0").digest(), hashlib.sha256(b"1").digest()
    >>> c0, c1 = commitment(bytes(8), s0), commitment(bytes(8), s1)
    >>> a, b = JointDice(0, c0, s0, c1), JointDice(1, c1, s1, c0)
    >>> sa, sb = a.share(), b.share()    # each board's share of throw 0, exchanged
    >>> bytes(a.throw(sb)) == bytes(b.throw(sa)), a.counter
    (True, 1)
    """

    def __init__(self, side, own_commit, seed, other_commit, player_seed=None, counter=0):
        if side == 0:
            jid = joint_id(own_commit, other_commit)
        else:
            jid = joint_id(other_commit, own_commit)
        self.side = side
        self._gen = Share(jid, side, seed, player_seed)
        self.counter = counter
        self.dice = bytearray(2)
        self._k = -1
        self._mine = None

    def share(self):
        """This board's share of throw ``counter`` (computed once per throw)."""
        if self._k != self.counter:
            self._mine = self._gen.share(self.counter)
            self._k = self.counter
        return self._mine

    def share_of(self, k):
        """This board's share of throw ``k`` (an earlier one again, or the one due)."""
        return self.share() if k == self.counter else self._gen.share(k)

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


class Board:
    """What one board publishes of a joint match: its match id and commitment (before the
    match), the seed it reveals (after), the shares it sent (in throw order, optional) and
    the throws its journal holds."""

    def __init__(self, match_id, commit, seed, throws, shares=None):
        self.match_id = match_id
        self.commit = commit
        self.seed = seed
        self.throws = throws
        self.shares = shares


def verify_joint(board0, board1, player_seed):
    """Check a joint match from both boards' transcripts (``Board``; ``board0`` is side 0's).

    Returns ``(ok, index, message)`` as ``bg.dice.verify_transcript``: ``index`` is the first
    throw that fails, -1 otherwise. Fails when a revealed seed does not match its board's
    commitment, the commitments are equal, a share a board sent is not the one its seed
    gives (that board is named), the two journals differ on a throw, or a throw is not the
    one both seeds give."""
    boards = (board0, board1)
    try:
        for i in (0, 1):
            b = boards[i]
            _check_len("match id of board %d" % i, b.match_id, MATCH_ID_LEN)
            _check_len("commitment of board %d" % i, b.commit, COMMIT_LEN)
            _check_len("seed of board %d" % i, b.seed, BOARD_SEED_LEN)
        if player_seed:
            _check_len("player seed", player_seed, PLAYER_SEED_LEN)
        jid = joint_id(board0.commit, board1.commit)
    except ValueError as e:
        return False, -1, "FAIL: " + str(e)
    gens = []
    for i in (0, 1):
        b = boards[i]
        if commitment(b.match_id, b.seed) != bytes(b.commit):
            return False, -1, "FAIL: board %d's revealed seed does not match its commitment" % i
        gens.append(Share(jid, i, b.seed, player_seed))
    t0, t1 = board0.throws, board1.throws
    if len(t0) != len(t1):
        return False, min(len(t0), len(t1)), "FAIL: board 0 holds %d throws, board 1 %d" % (len(t0), len(t1))
    dice = bytearray(2)
    for k in range(len(t0)):
        s0 = gens[0].share(k)
        s1 = gens[1].share(k)
        for i, s in ((0, s0), (1, s1)):
            sent = boards[i].shares
            if sent is not None and (k >= len(sent) or bytes(sent[k]) != s):
                return False, k, "FAIL: throw %d: board %d sent a share its seed does not give" % (k, i)
        combine(s0, s1, dice)
        for i, r in ((0, t0[k]), (1, t1[k])):
            if len(r) != 2 or r[0] != dice[0] or r[1] != dice[1]:
                return (
                    False,
                    k,
                    "FAIL: throw %d: board %d recorded %s, both seeds give %d-%d"
                    % (k, i, "-".join(str(x) for x in r), dice[0], dice[1]),
                )
    return True, -1, "PASS: both commitments, every share and all %d throws match" % len(t0)
