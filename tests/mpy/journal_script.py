"""A scripted, realistic match for the power-cut test, regenerated from each action's
index so nothing is stored (64k heap)."""


class Rng:
    """xorshift32: the same sequence on every interpreter."""

    def __init__(self, seed):
        self.s = seed or 1

    def next(self):
        s = self.s
        s ^= (s << 13) & 0xFFFFFFFF
        s ^= s >> 17
        s ^= (s << 5) & 0xFFFFFFFF
        self.s = s
        return s

    def below(self, n):
        return self.next() % n


MATCH_ID = b"\x10\x32\x54\x76\x98\xba\xdc\xfe"
MPATH = "/snap/journal/1032547698badcfe.m"
SEED = bytes(range(100, 132))


def match_fields(rec):
    return (
        MATCH_ID,
        1763700000,
        5,
        rec.OPT_CRAWFORD,
        0,
        0,
        0,
        "Alice",
        "Bj\u00f6rn",
        bytes(range(32)),
        b"",  # the player seed: the SEED_PART records after the commitment
    )


def plan():
    """The scripted match as action codes: H/B a host's / the buttons' player-seed part (after
    the commitment, before the first game), G game start, O opening, P first play (no new
    roll), T turn, D/A double/take, X drop, R/Y resign/accept, E game end; three games of
    ~30-55 turns. ``action(rec, plan, i)`` expands code ``i``."""
    p = bytearray(b"HB")
    for turns, cube_at, end in ((54, (17, 31), b""), (30, (), b"DX"), (42, (), b"RY")):
        p += b"GOP"
        for t in range(turns):
            if t in cube_at:
                p += b"DA"
            p += b"T"
        p += end + b"E"
    return p


def action(rec, p, i):
    """(kind, fields) of action ``i``: a pseudo-random but well-formed turn (1-4 steps,
    dances, bar entries, bear-offs, now and then a casual illegal play that needs the long
    ROLL + PLAY form), or a cube/resign/game record."""
    c = p[i]
    r = Rng(i * 2654435761 + 12345)
    side = i & 1
    if c == 72:  # H
        # a host's part with its proof (114 bytes, docs/dice.md): the longest record a match has
        return rec.SEED_PART, (1, "laptop", bytes(range(16)), bytes(range(140, 254)))
    if c == 66:  # B
        return rec.SEED_PART, (2, "", bytes(range(16, 32)))
    if c == 71:  # G
        return rec.GAME_START, (i // 60 + 1, 0, 1 if i > 60 else 0, 0)
    if c == 79:  # O
        return rec.OPENING, (0, (r.below(6) + 1, r.below(6) + 1))
    if c == 68:  # D
        return rec.DOUBLE, (side, 2)
    if c == 65:  # A
        return rec.TAKE, (side ^ 1,)
    if c == 88:  # X
        return rec.DROP, (side ^ 1,)
    if c == 82:  # R
        return rec.RESIGN, (side, 1)
    if c == 89:  # Y
        return rec.RESIGN_ACCEPT, (side ^ 1,)
    if c == 69:  # E
        return rec.GAME_END, (0, 2, 1, rec.END_BEAROFF)
    d1 = r.below(6) + 1
    d2 = r.below(6) + 1
    n = 0 if r.below(10) == 0 else (4 if d1 == d2 else 2)
    steps = []
    for k in range(n):
        f = 25 if r.below(20) == 0 else r.below(24) + 1
        die = d1 if k % 2 == 0 else d2
        steps.append(f)
        steps.append(f - die if f > die else 0)
    if c == 80:  # P
        return rec.PLAY, (side, tuple(steps), 0)
    flags = rec.PLAY_CASUAL_ACCEPTED_ILLEGAL if r.below(25) == 0 else 0
    return rec.TURN, (side, d1, d2, tuple(steps), flags)


def expand(rec, kind, fields):
    """The action(s) a decoder yields for what ``append(kind, fields)`` stored."""
    if kind == rec.TURN:
        s, d1, d2, steps, flags = fields
        return ((rec.ROLL, (s, d1, d2)), (rec.PLAY, (s, steps, flags)))
    return ((kind, fields),)
