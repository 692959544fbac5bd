"""The reference match behind journal_packcut: legal games from the rules engine (a full game
borne off with dances, hits and doubles; a short one with a double/take, a rejected and an
accepted resignation) written as plain records.

Its own module so journal_packcut can drop it (and its bytecode) once the reference bytes
exist: the power-cut replay then runs with that room free.
"""

from array import array

from bg import board, record
from bg.engine._visit import MoveGenVisit


class Rng:
    """xorshift32 (as journal_script.Rng; not imported: that module is big to compile)."""

    def __init__(self, seed):
        self.s = seed

    def below(self, n):
        s = self.s
        s ^= (s << 13) & 0xFFFFFFFF
        s ^= s >> 17
        s ^= (s << 5) & 0xFFFFFFFF
        self.s = s
        return s % n


class _Game:
    """Legal random turns from the engine (a visit picked by the xorshift generator)."""

    def __init__(self, rng, gen):
        self.rng = rng
        self.gen = gen
        self.k = 0
        self.pick = 0
        self.steps = ()
        self._cb = self._visit

    def _visit(self, w, st, n):
        if self.k == self.pick:
            self.steps = tuple(st[: 2 * n])
            self.gen.stop = True
        self.k += 1

    def play(self, pos, side, d1, d2):
        n = self.gen.for_each_end(pos, side, d1, d2, lambda w, st, k: None)
        self.steps = ()
        if n:
            self.pick = self.rng.below(n)
            self.k = 0
            self.gen.for_each_end(pos, side, d1, d2, self._cb)
        for i in range(0, len(self.steps), 2):
            board.apply_step(pos, side, self.steps[i], self.steps[i + 1])
        return self.steps


def reference():
    """(record bytes of the match after MATCH_START, end offset of each action, indexes of
    the GAME_END actions)."""
    rng = Rng(20261122)
    gen = MoveGenVisit()  # MoveGen's for_each_end, as bg.record.packdec uses it
    g = _Game(rng, gen)
    out = bytearray()
    ends = array("H")  # 2 bytes an action, not a list's 8 (the replays run at the heap's edge)
    game_ends = []

    def put(kind, fields):
        out.extend(record.encode(kind, fields))
        ends.append(len(out))

    for game_no, limit in ((1, 400), (2, 24)):
        put(record.GAME_START, (game_no, 0, 1 if game_no == 2 else 0, 0))
        while True:
            a = rng.below(6) + 1
            b = rng.below(6) + 1
            put(record.OPENING, (0, (a, b)))
            if a != b:
                break
        side = 0 if a > b else 1
        pos = board.start_position()
        put(record.PLAY, (side, g.play(pos, side, a, b), 0))
        turn = 1
        while pos[50] < 15 and pos[51] < 15 and turn < limit:
            side ^= 1
            if turn == 9:
                put(record.DOUBLE, (side, 2))
                put(record.TAKE, (side ^ 1,))
            if turn == 15 and game_no == 2:
                put(record.RESIGN, (side, 1))
                put(record.RESIGN_REJECT, (side ^ 1,))
            d1 = rng.below(6) + 1
            d2 = rng.below(6) + 1
            put(record.TURN, (side, d1, d2, g.play(pos, side, d1, d2), 0))
            turn += 1
        if game_no == 2:
            put(record.RESIGN, (side ^ 1, 2))
            put(record.RESIGN_ACCEPT, (side,))
            put(record.GAME_END, (side, 4, 2, record.END_RESIGN))
        else:
            put(record.GAME_END, (side, 2, 1, record.END_BEAROFF))
        game_ends.append(len(ends) - 1)
    return bytes(out), ends, game_ends
