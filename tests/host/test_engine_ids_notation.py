"""Match ID, XGID and move notation against GNU Backgammon itself (the ``gnubg`` package)."""

import random

import pytest
from bg import board, ids, notation
from bg import engine as movegen
from test_engine_oracle import _positions

gnubg = pytest.importorskip("gnubg")


def _gnubg_board(pos, side):
    return tuple(tuple(h) for h in board.to_gnubg(pos, side))


def test_notation_equals_gnubg_and_parses_back():
    gen = movegen.MoveGen()
    n = 0
    for pos, side, d1, d2 in _positions(2500, 5):
        gb = _gnubg_board(pos, side)
        for steps, end in gen.plays(pos, side, d1, d2):
            text = notation.format_play(pos, side, steps)
            pairs = tuple((steps[i], steps[i + 1]) for i in range(0, len(steps), 2))
            assert text == gnubg.move_tuple_to_string(pairs, gb), (ids.position_id(pos, side), d1, d2)
            back = notation.parse_play(text, pos, side, (d1, d2))
            w = bytearray(pos)
            gen.apply(w, side, back)
            assert bytes(w) == end, (text, steps, back)
            n += 1
    assert n > 40000


def _random_state(rng, side, d1, d2):
    length = rng.choice((0, 1, 3, 5, 7, 9, 11, 25))
    if length:
        s0, s1 = rng.randrange(length), rng.randrange(length)
        crawford = (length - 1 in (s0, s1)) and s0 != s1 and rng.random() < 0.5
        jacoby = False
    else:
        s0 = s1 = 0
        crawford = False
        jacoby = rng.random() < 0.5
    cube = 1 if crawford else 1 << rng.randrange(7)
    owner = -1 if cube == 1 else rng.choice((0, 1))
    dice = (d1, d2) if rng.random() < 0.6 else (0, 0)
    return dict(
        cube_value=cube,
        cube_owner=owner,
        dice=dice,
        length=length,
        score=(s0, s1),
        crawford=crawford,
        jacoby=jacoby,
    )


def test_match_id_and_xgid_equal_gnubg():
    rng = random.Random(3)
    n = 0
    for pos, side, d1, d2 in _positions(600, 11):
        st = _random_state(rng, side, d1, d2)
        mid = ids.match_id(dice_owner=side, game_state=1, **st)
        pid = ids.position_id(pos, side)
        dec = ids.decode_match_id(mid)
        assert dec["score"] == st["score"] and dec["cube_value"] == st["cube_value"]
        assert dec["cube_owner"] == st["cube_owner"] and dec["length"] == st["length"]
        assert dec["dice_owner"] == side and dec["crawford"] == st["crawford"]
        assert sorted(dec["dice"]) == sorted(st["dice"]) and dec["jacoby"] == st["jacoby"]
        gnubg.set_gnubg_id(pid + ":" + mid)
        assert (gnubg.position_id(), gnubg.match_id()) == (pid, mid)
        x = ids.xgid(pos, side, max_cube=10, **st)
        gnubg.set_gnubg_id(x)
        assert (gnubg.position_id(), gnubg.match_id()) == (pid, mid), x
        p2, info = ids.decode_xgid(x)
        assert p2 == pos and info["side_on_roll"] == side and info["dice"] == st["dice"]
        assert info["score"] == st["score"] and info["cube_value"] == st["cube_value"]
        assert info["cube_owner"] == st["cube_owner"] and info["jacoby"] == st["jacoby"]
        n += 1
    assert n == 600


def test_start_ids():
    pos = board.start_position()
    assert ids.position_id(pos, 0) == "4HPwATDgc/ABMA" == ids.position_id(pos, 1)
    assert ids.xgid(pos, 1) == "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


@pytest.mark.parametrize(
    "bad", ["", "4HPwATDgc/ABM", "4HPwATDgc/ABM!", "////////////// ", "AAAAAAAAAAAAAA", "4HPwATDgc/ABMAA"]
)
def test_bad_position_ids_raise(bad):
    with pytest.raises(ValueError):
        ids.decode_position_id(bad)


@pytest.mark.parametrize("bad", ["", "cInlAAAAAAA", "cInlAAAAAAA!", "////////////"])
def test_bad_match_ids_raise(bad):
    with pytest.raises(ValueError):
        ids.decode_match_id(bad)


@pytest.mark.parametrize(
    "bad",
    [
        "XGID=",
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0",
        "XGID=-b----E-C---eE---c-e----Z-:0:0:1:00:0:0:0:0:10",
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:77:0:0:0:0:10",
        "XGID=-b----E-C---eE---c-e---BB-:0:0:1:00:0:0:0:0:10",
    ],
)
def test_bad_xgids_raise(bad):
    with pytest.raises(ValueError):
        ids.decode_xgid(bad)


def test_match_state_match_id_accepted_by_gnubg():
    from bg.match import Match

    pid = "4HPwATDgc/ABMA"
    m = Match(length=7)
    m.new_game()
    m.start_turn(1)
    m.double(1)
    m.take()
    m.start_turn(0)
    m.rolled_dice()
    mid = ids.match_id(**m.match_id_fields(0, (5, 3)))
    gnubg.set_gnubg_id(pid + ":" + mid)
    assert gnubg.match_id() == mid
    d = ids.decode_match_id(mid)
    assert d["cube_value"] == 2 and d["cube_owner"] == 0 and d["length"] == 7 and d["dice"] == (5, 3)
    money = Match(length=0, jacoby=True)
    money.new_game()
    mid = ids.match_id(**money.match_id_fields(1, (6, 2)))
    gnubg.set_gnubg_id(pid + ":" + mid)
    assert gnubg.match_id() == mid and ids.decode_match_id(mid)["jacoby"]
