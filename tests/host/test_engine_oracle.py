"""The engine against GNU Backgammon's own move generator (``gnubg_nn``) on >= 20,000
positions reached by seeded random play: the sets of resulting positions must be equal, and
every Position ID must equal gnubg's and round-trip."""

import random

import pytest
from bg import board, ids
from bg import engine as movegen

gnubg_nn = pytest.importorskip("gnubg_nn")

N_POSITIONS = 20000
SEED = 20261121


def _gnubg_results(pos, side, d1, d2):
    anboard = board.to_gnubg(pos, side)
    keys = gnubg_nn.moves(anboard, d1, d2)
    return {tuple(tuple(h) for h in gnubg_nn.board_from_position_key(k)) for k in keys}


def _ours(results, side):
    out = set()
    for _steps, res in results:
        a, b = board.to_gnubg(res, side)
        out.add((tuple(a), tuple(b)))
    return out


def _blots(res, side):
    b = 25 if side else 0
    return sum(1 for i in range(b, b + 24) if res[i] == 1)


def _positions(n, seed):
    """Yield (pos, side, d1, d2) from random games. Each game has a style: uniformly random
    plays, hit-happy plays (bar positions, both sides on the bar) or safe plays (fewest
    blots, so games reach the bear-off); games are cut after 300 turns."""
    rng = random.Random(seed)
    gen = movegen.MoveGen()
    made = 0
    while made < n:
        pos = board.start_position()
        side = rng.randrange(2)
        style = rng.choice(("random", "hit", "safe", "safe"))
        for _turn in range(300):
            if made >= n:
                break
            d1 = rng.randint(1, 6)
            d2 = rng.randint(1, 6)
            yield pos, side, d1, d2
            made += 1
            plays = gen.plays(pos, side, d1, d2)
            if plays:
                opp_bar = 24 if side else 49
                if style == "hit":
                    hitting = [p for p in plays if p[1][opp_bar] > pos[opp_bar]]
                    pick = rng.choice(hitting or plays)
                elif style == "safe":
                    best = min(_blots(p[1], side) for p in plays)
                    pick = rng.choice([p for p in plays if _blots(p[1], side) == best])
                else:
                    pick = rng.choice(plays)
                pos = bytearray(pick[1])
            if pos[50 + side] == 15:
                break
            side = 1 - side


def test_plays_equal_gnubg_and_ids_match():
    gen = movegen.MoveGen()
    stats = {
        "bar": 0,
        "both_bar": 0,
        "bearoff": 0,
        "doubles": 0,
        "no_play": 0,
        "plays": 0,
        "visit_checked": 0,
    }
    for i, (pos, side, d1, d2) in enumerate(_positions(N_POSITIONS, SEED)):
        res = gen.plays(pos, side, d1, d2)
        mine = _ours(res, side)
        assert len(mine) == len(res), ("duplicate plays", ids.position_id(pos, side), d1, d2)
        theirs = _gnubg_results(pos, side, d1, d2)
        if not res:
            # gnubg lists the unchanged position as the one "play" when the turn passes
            assert theirs <= {tuple(tuple(h) for h in board.to_gnubg(pos, side))}, (
                ids.position_id(pos, side),
                d1,
                d2,
            )
        else:
            assert mine == theirs, (ids.position_id(pos, side), d1, d2, len(mine), len(theirs))
        if i % 2 == 0:
            stats["visit_checked"] += 1
            # the device's allocation-free visit reaches exactly the same positions
            seen = set()
            gen.for_each_end(pos, side, d1, d2, lambda w, st, n, seen=seen: seen.add(bytes(w)))
            assert seen == {k for _, k in res}, (ids.position_id(pos, side), d1, d2)
        pid = ids.position_id(pos, side)
        assert pid == gnubg_nn.position_id(list(board.to_gnubg(pos, side)))
        assert ids.decode_position_id(pid, side_on_roll=side) == pos
        stats["plays"] += len(res)
        stats["no_play"] += not res
        stats["doubles"] += d1 == d2
        stats["bar"] += pos[24 if side == 0 else 49] > 0
        stats["both_bar"] += pos[24] > 0 and pos[49] > 0
        stats["bearoff"] += board.all_home(pos, side)
    # the sample really covers the hard cases
    print(stats)
    assert stats["bar"] > 1000 and stats["both_bar"] > 50, stats
    assert stats["bearoff"] > 1000 and stats["doubles"] > 2500 and stats["no_play"] > 100, stats
    assert stats["visit_checked"] > 5000, stats


def test_bench_set_and_worst_position_equal_gnubg():
    """The 2,000 benchmark positions (counts recorded from gnubg; decoded with side 1 on roll
    this time) and the issue's worst position (1-1, 2,140 plays)."""
    import json
    from pathlib import Path

    gen = movegen.MoveGen()
    cases = []
    bench = Path(__file__).resolve().parents[3] / "shared" / "bench" / "positions_2000.json"
    assert bench.exists(), "benchmark set missing: %s (../shared from the project root)" % bench
    data = json.loads(bench.read_text())["positions"]
    assert len(data) == 2000, len(data)
    for d in data:
        pos = ids.decode_position_id(d["id"], side_on_roll=1)
        cases.append((pos, 1, d["dice"][0], d["dice"][1], d["plays"]))
    singles = {p: 1 for p in (3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 17, 19, 20, 22, 23)}
    cases.append((board.from_points(singles, {1: 2}), 0, 1, 1, 2140))
    for pos, side, d1, d2, n in cases:
        res = gen.plays(pos, side, d1, d2)
        assert len(res) == n, (ids.position_id(pos, side), d1, d2)
        assert _ours(res, side) == _gnubg_results(pos, side, d1, d2)
