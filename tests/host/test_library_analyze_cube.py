"""Cube-decision analysis of ``gammon analyze`` (``gammon.analyze``): doubles, takes, drops,
beavers and missed doubles rated with gnubg's evaluation, attributed to the right player."""

import pytest
from gammon import model

gnubg = pytest.importorskip("gnubg")

from bg import board  # noqa: E402
from gammon import analyze  # noqa: E402

# a bear-off race, side 0 (on roll) about two rolls ahead of side 1 with nobody gammoned (88 %
# for side 0 at 0-ply): a double is right (by 0.08) and the opponent must drop (by 0.4)
RACE_WON = board.from_points({6: 3, 5: 3, 4: 2}, {6: 3, 5: 3, 4: 3, 3: 2})
# side 0 has closed its board with two of side 1's checkers on the bar and most of side 1's
# checkers still far away: too good to double, and if doubled, a drop
CLOSED_OUT = board.from_points({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 3, 7: 2}, {25: 2, 13: 6, 8: 4, 6: 3})


def _match(actions, length=0, flags=0, score=(0, 0), crawford=False):
    """A hand-made match of one game from ``(kind, side, pos, cube, owner, extra)`` tuples."""
    m = model.Match()
    m.length = length
    m.flags = flags
    m.names = ("Alice", "Bob")
    g = model.Game(1, list(score), crawford)
    for kind, side, pos, cube, owner, kw in actions:
        g.actions.append(model.Action(kind, side, bytes(pos), cube, owner, **kw))
    m.games.append(g)
    return m


def _double(side, pos, cube=1, owner=-1):
    return (model.DOUBLE, side, pos, cube, owner, {"value": 2 * cube})


def _answer(kind, side, pos, cube=1, owner=-1):
    return (kind, side, pos, cube, owner, {"value": (4 if kind == model.BEAVER else 2) * cube})


def _play(side, pos, cube=1, owner=-1):
    return (model.PLAY, side, pos, cube, owner, {"dice": (6, 5), "steps": (24, 18, 18, 13)})


def _errors(m, side):
    per, errs = analyze.analyze_cube(m)
    return per[side], [e for e in errs if e.side == side]


@pytest.mark.parametrize("length", [0, 7])
def test_an_opening_double_is_an_error_of_the_doubler_and_the_take_is_right(length):
    start = board.start_position()
    m = _match([_double(0, start), _answer(model.TAKE, 1, start)], length=length)
    (n0, err0), (e0,) = _errors(m, 0)
    assert n0 == 1 and e0.kind == "double" and e0.best == "no double"
    assert err0 == e0.error > 0.1  # a big error, equity lost by the doubler
    assert e0.equities["double/take"] < e0.equities["no double"] < e0.equities["double/drop"]
    (n1, err1), (e1,) = _errors(m, 1)
    assert n1 == 1 and e1.kind == "take" and e1.best == "take" and err1 == 0.0


def test_an_opening_double_should_be_beavered_when_beavers_are_allowed():
    from bg import record

    start = board.start_position()
    m = _match([_double(0, start), _answer(model.TAKE, 1, start)], flags=record.OPT_BEAVER)
    (_, err1), (e1,) = _errors(m, 1)
    assert e1.best == "beaver" and err1 > 0
    m = _match([_double(0, start), _answer(model.BEAVER, 1, start)], flags=record.OPT_BEAVER)
    (_, err1), (e1,) = _errors(m, 1)
    assert e1.kind == "beaver" and e1.best == "beaver" and err1 == 0.0


@pytest.mark.parametrize("length", [0, 9])
def test_a_take_of_a_won_race_is_the_takers_error_and_the_double_is_right(length):
    m = _match([_double(0, RACE_WON), _answer(model.TAKE, 1, RACE_WON)], length=length)
    (n0, err0), (e0,) = _errors(m, 0)
    assert n0 == 1 and e0.best == "double" and err0 == 0.0
    (n1, err1), (e1,) = _errors(m, 1)
    assert n1 == 1 and e1.kind == "take" and e1.best == "drop" and err1 > 0.3
    assert "Bob took the cube at 2: right was drop" in e1.text
    m = _match([_double(0, RACE_WON), _answer(model.DROP, 1, RACE_WON)], length=length)
    assert _errors(m, 1)[0] == [1, 0.0]


def test_a_missed_double_in_a_won_race_is_an_error_of_the_player_on_roll():
    m = _match([_play(0, RACE_WON)], length=7)
    (n0, err0), (e0,) = _errors(m, 0)
    assert n0 == 1 and e0.kind == "no double" and e0.best == "double" and err0 > 0.05
    assert _errors(m, 1)[0] == [0, 0.0]
    # the same roll after a double and take is no missed double; the opponent cannot double
    m = _match([_double(0, RACE_WON), _answer(model.DROP, 1, RACE_WON)], length=7)
    assert [e.kind for e in analyze.analyze_cube(m)[1]] == ["double", "drop"]
    m = _match([_play(0, RACE_WON, cube=2, owner=1)], length=7)
    assert analyze.analyze_cube(m) == ([[0, 0.0], [0, 0.0]], [])


def test_no_cube_decisions_in_the_crawford_game():
    m = _match([_play(0, RACE_WON)], length=7, score=(6, 3), crawford=True)
    assert analyze.analyze_cube(m) == ([[0, 0.0], [0, 0.0]], [])


def test_too_good_to_double_closed_out_gammon():
    m = _match([_play(0, CLOSED_OUT)], length=0)
    per, errs = analyze.analyze_cube(m)
    assert per[0][1] == 0.0  # playing on for the gammon was right
    m = _match([_double(0, CLOSED_OUT), _answer(model.DROP, 1, CLOSED_OUT)], length=0)
    (_, err0), (e0,) = _errors(m, 0)
    assert e0.best == "no double" and err0 > 0  # doubling gave away the gammon
    (_, err1), (e1,) = _errors(m, 1)
    assert e1.best == "drop" and err1 == 0.0
    m = _match([_double(0, CLOSED_OUT), _answer(model.TAKE, 1, CLOSED_OUT)], length=0)
    (_, err1), (e1,) = _errors(m, 1)
    assert e1.kind == "take" and e1.best == "drop" and err1 > 0.5  # taking a gammonish loss
    assert "Bob took the cube at 2: right was drop" in e1.text


def test_random_matches_rate_every_cube_action_and_the_cli_lists_cube_mistakes(capsys):
    from export_helpers import MatchWriter

    w = MatchWriter(3, length=5, p_double=0.1)
    w.play_match()
    m = model.load_match(bytes(w.out))
    per, errs = analyze.analyze_cube(m)
    actions = [a for g in m.games for a in g.actions if a.kind in analyze.CUBE_KINDS]
    assert actions and {id(e.action) for e in errs} >= {id(a) for a in actions}
    assert per[0][0] + per[1][0] == len(errs)
    assert abs(per[0][1] + per[1][1] - sum(e.error for e in errs)) < 1e-9
    assert all(e.error >= 0 for e in errs) and errs == sorted(errs, key=lambda e: -e.error)
    lines = analyze.analysis_lines(m, top=40)
    text = "\n".join(lines)
    assert "cube errors" in text and "checker errors" in text
    assert errs[0].text in text
