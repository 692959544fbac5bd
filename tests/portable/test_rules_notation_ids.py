"""Notation as GNU Backgammon writes it, and the IDs (start position and round trips)."""

from bg import board, ids, notation
from bg import engine as movegen


def opp(points):
    return {(p if p == 25 else 25 - p): n for p, n in points.items()}


def test_notation_examples():
    start = board.start_position()
    assert notation.format_play(start, 0, (24, 18, 13, 9)) == "24/18 13/9"
    assert notation.format_play(start, 0, (8, 5, 8, 5, 6, 5, 6, 5)) == "8/5(2) 6/5(2)"
    pos = board.from_points({25: 1, 13: 14}, opp({22: 1, 1: 14}))
    assert notation.format_play(pos, 0, (25, 22, 13, 9)) == "bar/22* 13/9"
    home = board.from_points({6: 2, 5: 3}, opp({24: 15}))
    assert notation.format_play(home, 0, (6, 0, 5, 0)) == "6/off 5/off"
    hit = board.from_points({13: 3, 6: 12}, opp({7: 1, 24: 14}))
    assert notation.format_play(hit, 0, (13, 7, 7, 1)) == "13/7*/1"


def test_parse_examples():
    start = board.start_position()
    assert notation.parse_play("24/18 13/9", start, 0) == (24, 18, 13, 9)
    assert notation.parse_play("8/5(2)", start, 0) == (8, 5, 8, 5)
    assert notation.parse_play("24/20", start, 0, (3, 1)) in ((24, 21, 21, 20), (24, 23, 23, 20))
    hit = board.from_points({13: 3, 6: 12}, opp({7: 1, 24: 14}))
    assert notation.parse_play("13/7*/1", hit, 0) == (13, 7, 7, 1)
    assert notation.parse_play("bar/22*", start, 0) == (25, 22)
    assert notation.parse_play("6/off", start, 0) == (6, 0)


def test_parse_rejects_bad_text():
    start = board.start_position()
    for bad in ("", "24", "24/25", "x/3", "8/5(9)", "24/18 13/9 8/2 6/2 6/1"):
        try:
            r = notation.parse_play(bad, start, 0) if bad else notation.parse_play(bad, start, 0, (3, 1))
        except ValueError:
            continue
        assert False, (bad, r)
    try:
        notation.parse_play("24/14", start, 0, (6, 4))  # 18 and 20 are open: fine
        notation.parse_play("13/3", start, 0, (6, 4))  # lands on 3 via 9 or 7: fine
        notation.parse_play("24/15", start, 0, (6, 4))  # not 10 pips
    except ValueError:
        return
    assert False


def test_start_position_id():
    assert ids.position_id(board.start_position(), 0) == "4HPwATDgc/ABMA"


def test_position_id_round_trip():
    gen = movegen.MoveGen()
    pos = board.start_position()
    buf = bytearray(52)
    done = [0]

    def visit(w, st, n):
        for side in (0, 1):
            pid = ids.position_id(w, side)
            assert ids.decode_position_id(pid, buf, side) == w
        done[0] += 1

    gen.for_each_end(pos, 0, 6, 4, visit)
    assert done[0] >= 14  # 14 distinct plays of 6-4 from the start


def test_match_id_round_trip():
    mid = ids.match_id(cube_value=4, cube_owner=1, dice_owner=0, dice=(5, 2), length=7, score=(3, 5))
    d = ids.decode_match_id(mid)
    assert d["cube_value"] == 4 and d["cube_owner"] == 1 and d["dice"] == (5, 2)
    assert d["length"] == 7 and d["score"] == (3, 5)


def test_xgid_start():
    x = ids.xgid(board.start_position(), 1)
    assert x == "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    pos, info = ids.decode_xgid(x)
    assert pos == board.start_position() and info["side_on_roll"] == 1


def test_bad_ids_raise_value_error():
    for fn, arg in (
        (ids.decode_position_id, "4HPwATDgc/ABM"),
        (ids.decode_match_id, "xx"),
        (ids.decode_xgid, "XGID=nonsense"),
    ):
        try:
            fn(arg)
        except ValueError:
            continue
        assert False, arg
