"""``bg.aids.shots`` -- the coach's "how many rolls hit that blot" -- against the seed's table
(seed 002, Carlit's booklet: "Mögliche passende Würfe" 11 12 14 15 15 17 6 6 5 3 2 3 for 1..12
pips) for lone blots, and against a brute force over the 36 rolls (every legal play of
``bg.engine`` listed, did any remove the blot?) on positions with blocking points, the bar and
bear-offs, from seeded games."""

import random
import re
from pathlib import Path

from bg import aids, board
from bg import engine as movegen

SEEDS = Path(__file__).resolve().parents[3] / "shared" / "seeds"


def _seed_table():
    """The seed's two rows (rolls, percent), read from the 002 document itself."""
    path = sorted(SEEDS.glob("002_*.txt"))
    assert path, "seed 002 missing in %s (../shared from the project root)" % SEEDS
    text = path[0].read_text()
    rolls = re.search(r"Mögliche passende Würfe:\s*\n\s*\n?([\d ]+)\n", text).group(1).split()
    pct = re.search(r"Häufigkeit in %:\s*\n\s*\n?([\d ]+)\n", text).group(1).split()
    assert len(rolls) == len(pct) == 12
    return [int(v) for v in rolls], [int(v) for v in pct]


def _brute(gen, pos, side, point):
    """Rolls (of 36) for which some legal play of ``side`` leaves no opposing checker on its
    ``point``: every play ``plays()`` lists (itself checked against gnubg's generator by
    ``test_engine_oracle.py``), not the visit with its early answer that ``shots`` uses."""
    oi = (0 if side else 25) + 24 - point
    n = 0
    for a in range(1, 7):
        for b in range(1, 7):
            if any(end[oi] == 0 for _s, end in gen.plays(pos, side, a, b)):
                n += 1
    return n


def test_lone_blots_count_as_the_seeds_table():
    rolls, pct = _seed_table()
    gen = movegen.MoveGen()
    for d in range(1, 13):
        assert aids.hit_rolls(d) == rolls[d - 1] and aids.hit_percent(d) == pct[d - 1]
        # one shooter d pips from a lone blot (side 1's only checker), side 0's other
        # checkers at home below it, from several places on the board. (With the 1 point
        # closed as well, 6-1 would no longer hit from 8 to 7: the 6 could not follow the
        # hit, while 8/2 6/5 plays both dice -- the brute-force test below covers that.)
        for shooter in range(d + 7, 25):
            pos = board.from_points({shooter: 1, 6: 5, 5: 4}, {25 - (shooter - d): 1})
            want = rolls[d - 1]
            assert aids.shots(pos, 0, shooter - d) == want == _brute(gen, pos, 0, shooter - d)
            mirror = board.swap_sides(pos)
            assert aids.shots(mirror, 1, shooter - d) == want


def _positions(n, seed):
    """(pos, side) from seeded random games with hit-happy and safe plays."""
    rng = random.Random(seed)
    gen = movegen.MoveGen()
    out = []
    while len(out) < n:
        pos = board.start_position()
        side = rng.randrange(2)
        for _turn in range(200):
            out.append((bytes(pos), side))
            plays = gen.plays(pos, side, rng.randint(1, 6), rng.randint(1, 6))
            if plays:
                pos = bytearray(rng.choice(plays)[1])
            if pos[50 + side] == 15:
                break
            side = 1 - side
    return out


def test_a_hit_the_other_die_cannot_follow_does_not_count():
    # 8 -> 7* with 6-1 leaves the 6 unplayable (1 point closed, no bear-off with a checker
    # out) while 8/2 6/5 plays both dice: that hit is not a legal play, so 9 of the table's 11
    # (5-1 still hits: the 5 follows, 7/2).
    pos = board.from_points({8: 1, 6: 5, 5: 4}, {18: 1, 24: 3})
    gen = movegen.MoveGen()
    assert aids.shots(pos, 0, 7) == _brute(gen, pos, 0, 7) == 9
    assert aids.hit_rolls(1) == 11  # the seed's empty-board count


def test_shots_equal_a_brute_force_over_the_36_rolls():
    gen = movegen.MoveGen()
    checked = blocked = on_bar = 0
    for pos, side in _positions(1500, 16):
        ob = 25 if side == 0 else 0
        for point in range(1, 25):
            if pos[ob + 24 - point] != 1:
                continue
            got = aids.shots(pos, side, point)
            assert got == _brute(gen, pos, side, point), (pos, side, point)
            checked += 1
            # a closed point between a shooter and the blot
            mine = [p for p in range(point + 1, 26) if pos[(24 if side else -1) + p]]
            if any(pos[(24 if side else 49) - q] >= 2 for p in mine for q in range(point + 1, p)):
                blocked += 1
            on_bar += pos[(49 if side else 24)] > 0
    assert checked > 1000 and blocked > 300 and on_bar > 30, (checked, blocked, on_bar)


def test_hit_rolls_with_blocking_equal_the_brute_force():
    """``hit_rolls(d, blocked)`` (the table with closed points in between) is the real count
    for one shooter d pips from a blot with those points closed by the opponent, whatever the
    shooter's home board holds."""
    rng = random.Random(2)
    gen = movegen.MoveGen()
    masks = set()
    for _trial in range(600):
        d = rng.randint(2, 12)
        shooter = rng.randint(d + 7, 24)
        blot = shooter - d
        mask = 0
        theirs = {25 - blot: 1}
        for k in range(1, d):
            if rng.random() < 0.35 and len(theirs) < 7:
                mask |= 1 << k
                theirs[25 - (shooter - k)] = 2
        mine = {shooter: 1}
        mine.update(rng.choice(({}, {6: 5, 5: 5, 4: 4}, {1: 14})))
        pos = board.from_points(mine, theirs)
        want = _brute(gen, pos, 0, blot)
        assert aids.hit_rolls(d, mask) == want == aids.shots(pos, 0, blot), (d, bin(mask), mine)
        masks.add(mask)
    assert len(masks) > 200
