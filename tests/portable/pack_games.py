"""Random legal games from the rules engine as journal records, for the GAME_PACKED tests and
the benchmark (portable: runs under MicroPython too).

``game(rng)`` returns the records of one game exactly as the board appends them (``TURN`` for
a roll and its play, a bare ``PLAY`` after the opening, ``ROLL`` + flagged ``PLAY`` for a
casual illegal play) with every kind a game can hold: opening ties and house openings,
dances, hits and bar entries, bear-offs, doubles, cube actions (take, beaver, drop),
resignations (rejected, accepted), clock records, time losses."""

from bg import board
from bg import record as R
from bg.engine._visit import MoveGenVisit


class Rng:
    """xorshift32: the same numbers on every interpreter."""

    def __init__(self, seed):
        self.s = seed or 1

    def below(self, n):
        s = self.s
        s ^= (s << 13) & 0xFFFFFFFF
        s ^= s >> 17
        s ^= (s << 5) & 0xFFFFFFFF
        self.s = s
        return s % n


class _Pick:
    def __init__(self):
        self.gen = MoveGenVisit()  # what bg.record.packdec uses (MoveGen.for_each_end, less code)
        self.k = 0
        self.want = 0
        self.steps = ()
        self._cb = self._visit

    def _visit(self, w, st, n):
        if self.k == self.want:
            self.steps = tuple(st[: 2 * n])
            self.gen.stop = True
        self.k += 1

    def play(self, rng, pos, side, d1, d2):
        """A random visit's steps (() when the roll dances)."""
        n = self.gen.for_each_end(pos, side, d1, d2, lambda w, st, k: None)
        if not n:
            return ()
        self.want = rng.below(n)
        self.k = 0
        self.gen.for_each_end(pos, side, d1, d2, self._cb)
        return self.steps


_PICK = []


def _apply(pos, side, steps):
    for i in range(0, len(steps), 2):
        board.apply_step(pos, side, steps[i], steps[i + 1])


class _Out:
    # records encoded as they come: a long game never sits in RAM as tuples (64k heap)
    def __init__(self):
        self.b = bytearray()

    def append(self, a):
        self.b.extend(R.encode(a[0], a[1]))


def game(rng, game_no=1, features=True, stats=None):
    """One game's records as the journal stores them, before packing (bytes; see the
    module docstring). ``features``
    False: a plain cubeless game played to the end. ``stats`` (a dict) counts what
    happened: dance, bar, bearoff, double4, illegal, cube, resign."""
    if not _PICK:
        _PICK.append(_Pick())
    pk = _PICK[0]
    st = stats if stats is not None else {}
    out = _Out()
    out.append((R.GAME_START, (game_no, rng.below(3), rng.below(3), rng.below(2))))
    if features and rng.below(8) == 0:
        out.append((R.AUTO_DOUBLE, (2,)))
    house = features and rng.below(6) == 0
    while True:
        a = rng.below(6) + 1
        b = rng.below(6) + 1
        if house:
            c = rng.below(6) + 1
            e = rng.below(6) + 1
            out.append((R.OPENING, (R.OPEN_HOUSE, (a, b, c, e))))
            if a + b != c + e:
                # the starter plays the first pair (the packer's guess is the last: RAW play)
                side = 0 if a + b > c + e else 1
                break
        else:
            out.append((R.OPENING, (0, (a, b))))
            if a != b:
                side = 0 if a > b else 1
                break
    pos = board.start_position()
    steps = pk.play(rng, pos, side, a, b)
    _apply(pos, side, steps)
    out.append((R.PLAY, (side, steps, 0)))
    cube = 1
    while True:
        side ^= 1
        r = rng.below(200) if features else 199
        if r < 3 and cube < 64:
            out.append((R.DOUBLE, (side, 2 * cube)))
            st["cube"] = st.get("cube", 0) + 1
            if r == 0:
                out.append((R.DROP, (side ^ 1,)))
                out.append((R.GAME_END, (side, cube, 1, R.END_DROP)))
                return out.b
            cube *= 2
            if r == 1 and rng.below(2):
                cube *= 2
                out.append((R.BEAVER, (side ^ 1, cube)))
            else:
                out.append((R.TAKE, (side ^ 1,)))
        elif r < 5:
            st["resign"] = st.get("resign", 0) + 1
            out.append((R.RESIGN, (side, 1 + rng.below(3))))
            if r == 3:
                out.append((R.RESIGN_REJECT, (side ^ 1,)))
            else:
                if rng.below(2):  # resigned after rolling: the roll is stored on its own
                    out.append((R.ROLL, (side, rng.below(6) + 1, rng.below(6) + 1)))
                out.append((R.RESIGN_ACCEPT, (side ^ 1,)))
                out.append((R.GAME_END, (side ^ 1, cube, 1, R.END_RESIGN)))
                return out.b
        elif r == 5:
            out.append((R.GAME_END, (side ^ 1, cube, 1, R.END_TIME)))
            return out.b
        d1 = rng.below(6) + 1
        d2 = rng.below(6) + 1
        flags = 0
        if features and rng.below(60) == 0:
            # casual mode: an illegal play the opponent accepted (legal for other dice)
            steps = pk.play(rng, pos, side, 1 + (d1 % 6), 1 + (d2 + 2) % 6)
            flags = R.PLAY_CASUAL_ACCEPTED_ILLEGAL
            st["illegal"] = st.get("illegal", 0) + 1
        else:
            steps = pk.play(rng, pos, side, d1, d2)
        if not steps:
            st["dance"] = st.get("dance", 0) + 1
        if steps and steps[0] == 25:
            st["bar"] = st.get("bar", 0) + 1
        if any(steps[i] == 0 for i in range(1, len(steps), 2)):
            st["bearoff"] = st.get("bearoff", 0) + 1
        if len(steps) == 8:
            st["double4"] = st.get("double4", 0) + 1
        _apply(pos, side, steps)
        out.append((R.TURN, (side, d1, d2, steps, flags)))
        if features and rng.below(40) == 0:
            out.append((R.CLOCK, (side, rng.below(100000), rng.below(900000))))
        if pos[50 + side] == 15:
            kind = board.game_result(pos, side)
            out.append((R.GAME_END, (side, cube * kind, kind, R.END_BEAROFF)))
            return out.b


def packed_record(raw):
    """The GAME_PACKED record of one game's raw bytes (ValueError if it cannot be packed)."""
    from bg.record.packenc import Packer

    p = Packer()
    p.begin()
    for k, f in R.Decoder(raw, split_turns=False):
        p.add(k, f)
    pl = p.finish()
    rec = bytearray((R.GAME_PACKED, len(pl)))
    rec.extend(pl)
    c = R.crc16(rec)
    rec.append(c >> 8)
    rec.append(c & 255)
    return bytes(rec)


def same_actions(a, b, split=True):
    """True when two byte streams decode to the same actions (compared one by one)."""
    da = R.Decoder(a, split_turns=split)
    db = R.Decoder(b, split_turns=split)
    for x in da:
        if next(db, None) != x:
            return False
    return next(db, None) is None and da.status == R.OK and db.status == R.OK
