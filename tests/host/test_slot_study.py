"""The slot-count study (tools/slot_study.py) on a small sample: its vectorised counting
agrees with a plain recount, and more slots never make a play more ambiguous."""

import random

from bg import board, recognize
from bg import engine as movegen

from tools import slot_study


def _plain_count(games, seed, n, bar=6, tray=15):
    """Ambiguous chosen plays, counted the slow obvious way (dict of readings per turn)."""
    caps = recognize.make_caps(n, bar, tray)
    buf = bytearray(28)
    amb = turns = 0
    for g in range(games):
        rng = random.Random(seed * 1_000_003 + g)
        pos = board.start_position()
        side = rng.randrange(2)
        while True:
            d1 = rng.randint(1, 6)
            d2 = rng.randint(1, 6)
            pl = movegen.plays(pos, side, d1, d2)
            if pl:
                k = rng.randrange(len(pl))
                seen = {}
                for _, e in pl:
                    key = bytes(recognize.observe(e, buf, caps))
                    seen[key] = seen.get(key, 0) + 1
                turns += 1
                amb += seen[bytes(recognize.observe(pl[k][1], buf, caps))] > 1
                pos = bytearray(pl[k][1])
                if pos[50 + side] == 15:
                    break
            side ^= 1
    return turns, amb


def test_study_matches_plain_count_and_is_monotonic():
    data = slot_study.run(150, 7, 1, 4)  # 13,976 turns; 5, 2 and 51 ambiguous below
    v = data["variants"]
    for name, n, tray in (("5", 5, 15), ("6", 6, 15), ("6-no-trays", 6, 0)):
        turns, amb = _plain_count(150, 7, n, tray=tray)
        assert v[name]["turns"] == turns
        assert v[name]["choice_ambiguous"] == amb > 0
    seq = [v[k]["choice_ambiguous"] for k in ("5", "6", "7", "8", "inf")]
    assert seq == sorted(seq, reverse=True)  # a reading equal at N+1 slots is equal at N
    assert v["6-no-trays"]["choice_ambiguous"] >= v["6"]["choice_ambiguous"]
    for d in data["recognizer"].values():
        assert d["wrong"] == 0 and d["turns"] > 100
        assert d["complete"] + d["asked_ambiguous"] + d["asked_unfinished"] == d["turns"]
    assert "|" in slot_study.table(data)
