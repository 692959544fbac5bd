"""Checking a match between two boards after it, from both boards' transcripts: every share
and throw re-derived from both revealed seeds (``bg.dice.joint``'s rule).

Its own module: the hosts (``gammon remote verify``) and the tests check with it; a board
never does, and does not keep it in its heap while it plays another board.

Portable: CPython and MicroPython (``hashlib.sha256`` and ``bg.dice`` only).
"""

from bg.dice import (
    BOARD_SEED_LEN,
    COMMIT_LEN,
    MATCH_ID_LEN,
    PLAYER_SEED_LEN,
    _check_len,
    commitment,
)
from bg.dice.joint import Share, combine, joint_id


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
