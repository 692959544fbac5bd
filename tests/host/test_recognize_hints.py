"""A lifted checker's hints never miss a legal destination the engine knows.

For random games (seeded), after every legal prefix of the played play, every checker of the
mover is lifted in turn: the recogniser's forward hints must contain every destination of
``movegen.hints`` (the engine's own, legal-order search). They may add a few: a checker put
down where the *same* hand could have played it in another order or with the other die (the
recogniser accepts any order of hands; see docs/recognition.md).
"""

import random

from bg import board, recognize
from bg import engine as movegen


def test_forward_hints_contain_every_engine_hint():
    rng = random.Random(3)
    r = recognize.Recognizer(slots=15, bar_slots=15)  # uncapped: hints are about rules, not stacks
    buf = bytearray(28)
    cur_obs = bytearray(28)
    checked = equal = 0
    for _ in range(12):
        pos = board.start_position()
        side = rng.randrange(2)
        while True:
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            plays = movegen.plays(pos, side, d1, d2)
            if plays:
                steps, end = plays[rng.randrange(len(plays))]
                r.begin(pos, side, d1, d2)
                cur = bytearray(pos)
                for k in range(0, len(steps) - 2, 2):
                    board.apply_step(cur, side, steps[k], steps[k + 1])
                    for p in range(1, 26):
                        i = board.idx(side, p)
                        if not cur[i]:
                            continue
                        # a legal prefix; it may also be a whole legal play (same position)
                        assert r.update(recognize.observe(cur, cur_obs, r.caps)) in (
                            recognize.PARTIAL,
                            recognize.COMPLETE,
                        )
                        lifted = bytearray(cur)
                        lifted[i] -= 1
                        assert r.update(recognize.observe(lifted, buf, r.caps)) in (
                            recognize.LIFTED,
                            recognize.ILLEGAL,
                        )
                        want = 0
                        m = movegen.hints(pos, side, d1, d2, cur, p)
                        for q in range(25):
                            if m >> q & 1:
                                want |= 1 << recognize.row_of(side, q)
                        got = r.forward_hints()
                        assert got & want == want, (list(pos), side, d1, d2, steps, k, p)
                        checked += 1
                        equal += got == want
                pos = bytearray(end)
                if pos[50 + side] == 15:
                    break
            side ^= 1
    assert checked > 3000
    assert equal > 0.9 * checked
